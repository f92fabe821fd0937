import { render, screen } from '@testing-library/react';

import { Markdown } from '@/components/ui/markdown';

test('headings, lists, tables and bold render as elements; HTML stays text', () => {
  const text = ['# Spec', '', '- **Fabric:** linen', '- Lining', '', '1. Cut', '2. Sew', '', '| Point | cm |', '|---|---|', '| Chest | 52 |', '', '<img src=x onerror=alert(1)>'].join('\n');
  const { container } = render(<Markdown text={text} />);
  expect(screen.getByRole('heading', { name: 'Spec' })).toBeInTheDocument();
  expect(screen.getByText('Fabric:').tagName).toBe('STRONG');
  expect(container.querySelectorAll('ul li')).toHaveLength(2);
  expect(container.querySelectorAll('ol li')).toHaveLength(2);
  expect(screen.getByRole('columnheader', { name: 'Point' })).toBeInTheDocument();
  expect(screen.getByRole('cell', { name: '52' })).toBeInTheDocument();
  expect(container.querySelector('img')).toBeNull();
  expect(screen.getByText('<img src=x onerror=alert(1)>')).toBeInTheDocument();
});
