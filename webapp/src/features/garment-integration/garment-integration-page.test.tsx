import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';

import { fill } from '@/testing/fill';
import { accepted, bodyOf, makeJob, renderTool } from '@/testing/tool-mocks';

test('the full-screen overlay says about 20 seconds and carries the job figures; the body maps product and editorial', async () => {
  const calls = renderTool('/restyle-editorial', {
    'POST /api/restyle-editorial/process': accepted(makeJob('g1', 'queued')),
    'GET /api/jobs/g1/': { body: makeJob('g1', 'queued', { queue_position: 2, eta_seconds: 75 }) },
  });
  await userEvent.click(await screen.findByRole('button', { name: 'Run' }));
  expect(screen.getByText('SYSTEM ALERT: Provide both Editorial Image URL and Product Image URL.')).toBeInTheDocument();

  await fill({ 'Editorial Image URL': 'https://cdn.example/editorial.jpg', 'Product Image URL': 'https://cdn.example/bag.jpg' });
  await userEvent.click(screen.getByRole('button', { name: 'Run' }));

  const overlay = await screen.findByRole('dialog', { name: 'Integrating Your Garment' });
  expect(overlay).toHaveTextContent('This usually takes about 20 seconds.');
  expect(await screen.findByText('Position in queue: 2')).toBeInTheDocument();
  expect(screen.getByText('ETA ~1m')).toBeInTheDocument();
  expect(bodyOf(calls.find((call) => call.method === 'POST')!)).toEqual({ garment_url: 'https://cdn.example/bag.jpg', outfit_url: 'https://cdn.example/editorial.jpg' });
});

test('Ecommerce Asset: accessory goes as garment_url, model as outfit_url; its own alert', async () => {
  renderTool('/catalog-asset');
  await userEvent.type(await screen.findByLabelText('Accessory Image URL'), 'https://cdn.example/ring.jpg');
  await userEvent.click(screen.getByRole('button', { name: 'Run' }));

  expect(screen.getByText('SYSTEM ALERT: Provide both Accessory URL and Base Model Image URL.')).toBeInTheDocument();
});
