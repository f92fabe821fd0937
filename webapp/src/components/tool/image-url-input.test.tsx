import { fireEvent, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';

import { ImageUrlInput } from '@/components/tool/image-url-input';
import { renderComponent } from '@/testing/render-app';

function Harness({ mode }: { mode?: 'preview' | 'card' }) {
  const [value, setValue] = useState('');
  return <ImageUrlInput label="Base Image URL" value={value} onChange={setValue} mode={mode} />;
}

test('no preview until the text has an image extension or http; then loading, then the image', async () => {
  renderComponent(<Harness />);
  const input = screen.getByLabelText('Base Image URL');

  await userEvent.type(input, 'cdn.example/look');
  expect(screen.queryByRole('img')).not.toBeInTheDocument();
  expect(screen.queryByText('Loading preview…')).not.toBeInTheDocument();

  await userEvent.type(input, '.png');
  expect(screen.getByText('Loading preview…')).toBeInTheDocument();
  const image = screen.getByAltText('Base Image URL preview');
  expect(image).toHaveAttribute('src', 'cdn.example/look.png');
  expect(image).not.toBeVisible();

  fireEvent.load(image);
  expect(screen.getByRole('img', { name: 'Base Image URL preview' })).toBeVisible();
  expect(screen.queryByText('Loading preview…')).not.toBeInTheDocument();
});

test("a broken image reads 'Failed to load'; a new URL starts loading again", async () => {
  renderComponent(<Harness />);
  const input = screen.getByLabelText('Base Image URL');
  await userEvent.type(input, 'https://cdn.example/missing');

  fireEvent.error(screen.getByAltText('Base Image URL preview'));
  expect(screen.getByRole('alert')).toHaveTextContent('Failed to load');

  await userEvent.type(input, '.jpg');
  expect(screen.queryByText('Failed to load')).not.toBeInTheDocument();
  expect(screen.getByText('Loading preview…')).toBeInTheDocument();
});

test('card mode accepts only a URL whose path ends in an image extension, svg included', async () => {
  renderComponent(<Harness mode="card" />);
  const input = screen.getByLabelText('Base Image URL');

  await userEvent.type(input, 'https://cdn.example/look');
  expect(input).toHaveAttribute('aria-invalid', 'true');
  expect(screen.getByText(/Use a link to an image file/)).toBeInTheDocument();
  expect(screen.queryByAltText('Base Image URL preview')).not.toBeInTheDocument();

  await userEvent.type(input, '.svg');
  expect(input).not.toHaveAttribute('aria-invalid');
  expect(screen.getByAltText('Base Image URL preview')).toHaveAttribute('src', 'https://cdn.example/look.svg');
});
