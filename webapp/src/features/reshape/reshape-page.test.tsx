import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';

import { fill } from '@/testing/fill';
import { batchRun, bodyOf, renderTool } from '@/testing/tool-mocks';

test('a card without a complete change is not valid', async () => {
  renderTool('/reshaping');
  await fill({ 'Image URL': 'https://cdn.example/a.jpg', 'Target Garment': 'Dress' });
  await userEvent.selectOptions(screen.getByLabelText('Area of change 1'), 'hem'); // no instruction

  await userEvent.click(screen.getByRole('button', { name: 'Run' }));

  expect(screen.getByRole('alert')).toHaveTextContent(
    'No Valid CardsPlease fill in at least one complete card (URL, garment type, and at least one change)',
  );
});

test('only complete changes are sent, and the garment lower-cased', async () => {
  const calls = renderTool('/reshaping', batchRun('/api/reshaping/reshape'));
  await fill({ 'Image URL': 'https://cdn.example/a.jpg', 'Target Garment': 'Trousers / Pants', 'Area of change 1': 'hem', 'Instruction 1': ' crop to the ankle ' });
  await userEvent.click(screen.getByRole('button', { name: /Add Change/ }));
  await userEvent.selectOptions(screen.getByLabelText('Area of change 2'), 'waist'); // incomplete

  await userEvent.click(screen.getByRole('button', { name: 'Run' }));

  await screen.findByRole('dialog', { name: 'Success!' });
  expect(bodyOf(calls.find((call) => call.method === 'POST')!)).toEqual([
    { image_url: 'https://cdn.example/a.jpg', target_garment: 'trousers / pants', changes: [{ place: 'hem', instruction: 'crop to the ankle' }] },
  ]);
});
