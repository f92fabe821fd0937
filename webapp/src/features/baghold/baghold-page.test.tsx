import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';

import { accepted, batchList, batchUrl, bodyOf, renderTool } from '@/testing/tool-mocks';

// Typing two bags' worth of fields takes a while on a busy machine.
jest.setTimeout(20000);
// The lazy-loaded page can take more than findBy's default second to appear on a busy machine.
const PAGE_LOAD = { timeout: 5000 };

async function fillBag(card: HTMLElement, url: string, [w, h, d]: string[], gender = 'Female') {
  const inCard = within(card);
  await userEvent.type(inCard.getByLabelText('Bag Image URL'), url);
  await userEvent.type(inCard.getByLabelText('Width (cm)'), w);
  await userEvent.type(inCard.getByLabelText('Height (cm)'), h);
  await userEvent.type(inCard.getByLabelText('Depth (cm)'), d);
  await userEvent.selectOptions(inCard.getByLabelText('Gender'), gender);
}

test('only ready bags are sent; Process Bags waits for one; Invalid image URL; Start New Session', async () => {
  const calls = renderTool('/bag-holder', { 'POST /api/bag-holder/process': accepted({ batch_id: 'b1', count: 1, jobs: [] }), [batchUrl()]: batchList([]) });
  const process = await screen.findByRole('button', { name: 'Process Bags' }, PAGE_LOAD);
  expect(process).toBeDisabled();

  await fillBag(screen.getByRole('listitem', { name: 'Bag Holder 1' }), 'https://cdn.example/tote.webp', ['30', '25.5', '12']);
  await userEvent.click(screen.getByRole('button', { name: /Add Another Bag/ }));
  await fillBag(screen.getByRole('listitem', { name: 'Bag Holder 2' }), 'https://cdn.example/tote.html', ['30', '25', '12']);

  expect(screen.getByText('Invalid image URL')).toBeInTheDocument();
  expect(screen.getByText('1 of 2 bags ready')).toBeInTheDocument();
  await userEvent.type(within(screen.getByRole('listitem', { name: 'Bag Holder 1' })).getByLabelText('Handle drop (cm, optional)'), '20');
  await userEvent.click(process);

  const success = await screen.findByRole('dialog', { name: 'Success!' });
  expect(bodyOf(calls.find((call) => call.method === 'POST')!)).toEqual([
    { Bag_Url: 'https://cdn.example/tote.webp', Width: 30, Height: 25.5, Depth: 12, Handle: 20, Strap: null, Gender: 'Female' },
  ]);
  expect(screen.getByText('✅ Processing Started')).toBeInTheDocument();
  await userEvent.click(within(success).getByRole('button', { name: 'Start New Session' }));
  expect(screen.getAllByRole('listitem', { name: /^Bag Holder \d+$/ })).toHaveLength(1);
});

test('failures use the Baghold texts', async () => {
  renderTool('/bag-holder', {
    'GET /api/bag-holder/urls': { status: 503, body: { error: 'drive_unavailable', message: 'down' } },
    'POST /api/bag-holder/process': { status: 400, body: { error: 'invalid', message: 'Your model library has no male model.' } },
  });
  await userEvent.click(await screen.findByRole('button', { name: 'Get URLs' }, PAGE_LOAD));
  expect(await screen.findByRole('alert')).toHaveTextContent('❌ Failed to Fetch URLsFailed to fetch URLs: Service Unavailable');

  await fillBag(screen.getByRole('listitem', { name: 'Bag Holder 1' }), 'https://cdn.example/tote.jpg', ['30', '25', '12'], 'Male');
  await userEvent.click(screen.getByRole('button', { name: 'Process Bags' }));

  expect(await screen.findByText('Processing failed: Bad Request')).toBeInTheDocument();
  expect(screen.getByText('Your model library has no male model.')).toBeInTheDocument();
});
