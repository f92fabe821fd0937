import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';

import { fill } from '@/testing/fill';
import { batchRun, bodyOf, renderTool } from '@/testing/tool-mocks';

test('Run is disabled until a card has a URL and a fabric; an incomplete card gives the spec message', async () => {
  const calls = renderTool('/refabric');
  const run = await screen.findByRole('button', { name: 'Run' });
  expect(run).toBeDisabled();

  await userEvent.type(screen.getByLabelText('Image URL'), 'https://cdn.example/a.jpg');
  expect(run).toBeDisabled();
  await userEvent.selectOptions(screen.getByLabelText('Fabric Type'), 'denim');
  expect(run).toBeEnabled();

  await userEvent.click(run);

  expect(screen.getByRole('alert')).toHaveTextContent(
    'No Valid CardsPlease fill in at least one complete card (URL, fabric type, material finish, and garment type)',
  );
  expect(calls.some((call) => call.method === 'POST')).toBe(false);
});

test('a complete card is sent with the spec field names', async () => {
  const calls = renderTool('/refabric', batchRun('/api/refabricing/refabric'));
  await fill({ 'Image URL': ' https://cdn.example/a.jpg ', 'Fabric Type': 'velvet', 'Material Finish': 'matte', 'Garment Type': 'outerwear' });

  await userEvent.click(screen.getByRole('button', { name: 'Run' }));

  await screen.findByRole('dialog', { name: 'Success!' });
  expect(bodyOf(calls.find((call) => call.method === 'POST')!)).toEqual([
    { image_url: 'https://cdn.example/a.jpg', re_fabric: 'velvet', material_finish: 'matte', target_garment: 'outerwear' },
  ]);
  expect(screen.getByRole('button', { name: 'Start New Refabric' })).toBeInTheDocument();
});
