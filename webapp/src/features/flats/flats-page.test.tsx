import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';

import { accepted, batchList, batchUrl, bodyOf, DRIVES, makeJob, renderTool } from '@/testing/tool-mocks';

const step = (name: string) => screen.getByText(name).closest('li')!;

test('four input drives; Run sends the categories; the steps follow the jobs’ real progress', async () => {
  let polls = 0;
  const input = { outfit: 'LOOK01', model: 'ana' };
  const running = [makeJob('f1', 'running', { tool: 'flats', input, progress: 65, eta_seconds: 40 })];
  const done = [makeJob('f1', 'succeeded', { tool: 'flats', input })];
  const calls = renderTool('/flats-catalog', {
    // The API's order: by category name.
    'GET /api/drives/': { body: [...DRIVES].sort((a, b) => (a.category ?? '').localeCompare(b.category ?? '')) },
    'POST /api/flats-catalog/sync': accepted({ batch_id: 'b1', count: 1, jobs: [makeJob('f1', 'queued')], skipped: [] }),
    [batchUrl()]: () => batchList(polls++ < 1 ? running : done),
  });
  const drives = await screen.findByRole('navigation', { name: 'Input drives' });
  const links = await within(drives).findAllByRole('link');
  expect(links.map((link) => link.textContent)).toEqual(['SHOES', 'BOTTOM', 'TOP', 'OVERLAYER', 'Output Drive']);
  expect(within(drives).getByRole('link', { name: 'SHOES' })).toHaveAttribute('href', '/drives/flats-shoes');
  expect(within(drives).getByRole('link', { name: 'OVERLAYER' })).toBeInTheDocument();

  await userEvent.click(screen.getByRole('button', { name: 'Run' }));

  expect(bodyOf(calls.find((call) => call.method === 'POST')!)).toMatchObject({ action: 'sync', categories: ['shoes', 'bottom', 'top', 'overlayer'] });
  expect(await screen.findByText('About 40 s remaining')).toBeInTheDocument();
  expect(step('Analyzing input clothing items')).toHaveClass('is-done');
  expect(step('Compositing outfit on model')).toHaveClass('is-done');
  expect(step('Uploading to output drive')).not.toHaveClass('is-done');
  expect(screen.getByRole('button', { name: 'Run' })).toBeDisabled();

  expect(await screen.findByText('Sync complete.', {}, { timeout: 4000 })).toBeInTheDocument();
  expect(step('Uploading to output drive')).toHaveClass('is-done');
  expect(screen.getByText('1 of 1 done')).toBeInTheDocument();
  expect(screen.getByText('1. LOOK01')).toBeInTheDocument(); // the job is named by its outfit
});

test('a failed sync toasts Sync Failed', async () => {
  renderTool('/flats-catalog', { 'POST /api/flats-catalog/sync': { status: 409, body: { error: 'conflict', message: 'A sync is running.' } } });
  await userEvent.click(await screen.findByRole('button', { name: 'Run' }));

  expect(await screen.findByRole('alert')).toHaveTextContent('Sync FailedSync failed: Conflict');
  expect(screen.getByText('Sync failed.')).toBeInTheDocument();
});

test('a look that failed is not Sync complete: the countdown counts the failure and nothing is marked uploaded', async () => {
  const failed = [makeJob('f1', 'failed', { tool: 'flats', input: { outfit: 'LOOK01' }, error: { code: 'no_shoulders', message: 'No shoulders were found on the model.' } })];
  renderTool('/flats-catalog', {
    'POST /api/flats-catalog/sync': accepted({ batch_id: 'b1', count: 1, jobs: [makeJob('f1', 'queued', { tool: 'flats' })], skipped: [] }),
    [batchUrl()]: batchList(failed),
  });
  await userEvent.click(await screen.findByRole('button', { name: 'Run' }));

  expect(await screen.findByText('Sync finished with failures: 0 of 1 done · 1 failed. The reasons are shown below.')).toBeInTheDocument();
  expect(screen.queryByText('Sync complete.')).not.toBeInTheDocument();
  expect(step('Uploading to output drive')).not.toHaveClass('is-done');
  expect(screen.getByText('Failed: No shoulders were found on the model.')).toBeInTheDocument();
  expect(screen.getByRole('button', { name: 'Retry 1 failed item' })).toBeEnabled();
});
