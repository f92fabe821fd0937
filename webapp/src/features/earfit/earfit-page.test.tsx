import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';

import { batchRun, bodyOf, makeJob, renderTool } from '@/testing/tool-mocks';

test('height outside 0.5–10 shows the message and the card is not valid', async () => {
  const calls = renderTool('/earring-catalog');
  await userEvent.type((await screen.findAllByLabelText('Ring Image URL'))[0], 'https://cdn.example/ring.png');
  await userEvent.clear(screen.getAllByLabelText('Ring Height (inches)')[0]);
  await userEvent.type(screen.getAllByLabelText('Ring Height (inches)')[0], '12');

  expect(screen.getByText('Must be between 0.5 and 10 inches')).toBeInTheDocument();
  await userEvent.click(screen.getByRole('button', { name: 'Generate Earfit' }));

  expect(screen.getByRole('alert')).toHaveTextContent(
    'No Valid CardsPlease fill in at least one complete card with ring image URL and height between 0.5 and 10 inches',
  );
  expect(calls.some((call) => call.method === 'POST')).toBe(false);
});

test('the add tile counts cards out of 20; valid cards are sent with their heights; Start New Earfit resets', async () => {
  const jobs = [makeJob('e1', 'running', { tool: 'earfit', progress: 40, input: { ring_image: 'https://cdn.example/ring.png', model_name: 'Ana' } })];
  const calls = renderTool('/earring-catalog', batchRun('/api/earring-catalog/process', jobs));
  expect(await screen.findByRole('button', { name: /Add Card/ })).toHaveTextContent('3/20');
  // a fresh page offers the spec's three default heights
  expect(screen.getAllByLabelText('Ring Height (inches)').map((input) => (input as HTMLInputElement).value)).toEqual(['1.2', '1.5', '2']);
  await userEvent.type(screen.getAllByLabelText('Ring Image URL')[1], 'https://cdn.example/ring.png');

  await userEvent.click(screen.getByRole('button', { name: 'Generate Earfit' }));

  // its job still runs: the headline counts it, no Success! yet
  const success = await screen.findByRole('dialog', { name: '0 of 1 done' });
  expect(bodyOf(calls.find((call) => call.method === 'POST')!)).toEqual([{ ring_image: 'https://cdn.example/ring.png', ring_height_in: 1.5 }]);
  expect(await within(success).findByText('1. ring.png · Ana')).toBeInTheDocument();
  expect(within(success).getByText('Running · 40%')).toBeInTheDocument();
  await userEvent.click(within(success).getByRole('button', { name: 'Start New Earfit' }));
  expect(screen.getByLabelText('Ring Image URL')).toHaveValue('');
  expect(screen.getByRole('button', { name: /Add Card/ })).toHaveTextContent('1/20');
});

test('a network failure says the earring catalog data could not be generated', async () => {
  renderTool('/earring-catalog');
  await userEvent.type((await screen.findAllByLabelText('Ring Image URL'))[2], 'https://cdn.example/ring.png');

  await userEvent.click(screen.getByRole('button', { name: 'Generate Earfit' }));

  expect(await screen.findByRole('alert')).toHaveTextContent('❌ Generation FailedAn error occurred while generating the earring catalog data');
});

test('an empty model library is explained', async () => {
  renderTool('/earring-catalog', { 'GET /api/models/': { body: [] } });

  expect(await screen.findByText(/Your model library is empty: ask Atelier to add your models\./)).toBeInTheDocument();
});
