import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';

import { SPINVIEW_RESET_MS } from '@/features/spinview/spinview-page';
import { queueRow } from '@/testing/catalogue';
import { accepted, batchList, batchUrl, bodyOf, makeJob, renderTool } from '@/testing/tool-mocks';

const activity = [
  { id: 1, timestamp: '2025-05-01T10:00:00Z', tool: 'spinview', action: 'Sync Started', status: 'Success', details: 'ok', job_id: null, engine: '', tier: '' },
];

const statusBar = () => screen.getByRole('group', { name: 'Tool status' });

test('Run sync: the sync call, the queued videos and skipped files, the toast, the activity log, then idle after 3 s', async () => {
  const jobs = [makeJob('s1', 'queued', { tool: 'spinview', input: { code: 'SKU1' } })];
  const calls = renderTool('/catalog-video', {
    // the video made from the sync is still in the queue when the status goes back to idle
    'GET /api/queues/': { body: [queueRow('spinview', { queue: 'video', queued: 1 })] },
    'POST /api/catalog-video/sync': accepted({ batch_id: 'b1', count: 1, jobs, skipped: [{ name: 'notes.txt', reason: 'not an image' }] }),
    [batchUrl()]: batchList(jobs),
    'GET /api/activity/?tool=spinview&limit=5': { body: activity },
  });
  expect(await screen.findByRole('link', { name: 'Input Drive' })).toHaveAttribute('href', '/drives/spinview-input');
  expect(screen.getByRole('link', { name: 'Output Drive' })).toHaveAttribute('href', '/drives/spinview-output');
  expect(await screen.findByText('Sync Started')).toBeInTheDocument();

  {
    await userEvent.click(screen.getByRole('button', { name: 'Run sync' }));

    expect(await screen.findByText('✅ Sync Complete!')).toBeInTheDocument();
    expect(screen.getByText('Videos have been synchronized successfully.')).toBeInTheDocument();
    expect(screen.getByText('Your video queue is been processed. Average completion time: 110s per video.')).toBeInTheDocument();
    const body = bodyOf(calls.find((call) => call.method === 'POST')!);
    expect(body.action).toBe('sync');
    expect(new Date(body.timestamp).toString()).not.toBe('Invalid Date');
    expect(await screen.findByText('0 of 1 done')).toBeInTheDocument();
    expect(screen.getByText('not an image')).toBeInTheDocument();
    expect(within(statusBar()).getByText('Complete')).toBeInTheDocument();

    // back to idle after 3 s (real time: fake timers and react-query's polling disagree),
    // while the queue still counts the video being made
    await waitFor(
      () => expect(screen.queryByText(/Your video queue is been processed/)).not.toBeInTheDocument(),
      { timeout: SPINVIEW_RESET_MS + 2000 },
    );
    expect(within(statusBar()).getByText('System Ready')).toBeInTheDocument();
    expect(within(statusBar()).getByText('Queue').nextElementSibling).toHaveTextContent('1');
  }
}, 15000);

test('a failed sync: ❌ Sync Failed with the status text', async () => {
  renderTool('/catalog-video', { 'POST /api/catalog-video/sync': { status: 503, body: { error: 'drive_unavailable', message: 'The input drive does not answer.' } } });

  await userEvent.click(await screen.findByRole('button', { name: 'Run sync' }));

  expect(await screen.findByRole('alert')).toHaveTextContent('❌ Sync FailedSync failed: Service Unavailable');
  expect(screen.getByText('Error: The input drive does not answer.')).toBeInTheDocument();
});
