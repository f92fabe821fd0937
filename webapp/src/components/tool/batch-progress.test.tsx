import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';

import { BatchProgress, BatchProgressView } from '@/components/tool/batch-progress';
import { JobProgress } from '@/components/tool/job-result';
import { ToolStatusBar } from '@/components/tool/status-bar';
import { jobStatusLabel } from '@/lib/jobs';
import { queueRow } from '@/testing/catalogue';
import { renderComponent } from '@/testing/render-app';
import { mockFetch } from '@/testing/mock-fetch';
import { batchList, batchUrl, makeJob } from '@/testing/tool-mocks';

test('a job whose worker was lost says which attempt it is on, in the batch view and under the bar', () => {
  const jobs = [
    makeJob('j1', 'queued', { attempts: 0, input: { image_url: 'https://cdn.example/a.jpg' } }),
    // its first run was lost: back in the queue, waiting for its second attempt
    makeJob('j2', 'queued', { attempts: 1, queue_position: 1, input: { image_url: 'https://cdn.example/b.jpg' } }),
    // taken over: running again, its bar where the lost run had left it
    makeJob('j3', 'running', { attempts: 2, progress: 55, input: { image_url: 'https://cdn.example/c.jpg' } }),
  ];
  renderComponent(
    <>
      <BatchProgressView jobs={jobs} />
      <JobProgress progress={55} job={jobs[2]} />
    </>,
  );

  const items = within(screen.getByRole('region', { name: 'Batch progress' })).getAllByRole('listitem');
  expect(items[0]).toHaveTextContent('Queued');
  expect(items[0]).not.toHaveTextContent('retrying');
  expect(items[1]).toHaveTextContent('Queued · position 1 · retrying (attempt 2)');
  expect(items[2]).toHaveTextContent('Running · 55% · retrying (attempt 2)');
  expect(screen.getByText('Running · retrying (attempt 2)')).toBeInTheDocument();
  expect(screen.getByRole('progressbar', { name: 'Progress' })).toHaveAttribute('aria-valuenow', '55');
});

test("a partner's retry of a failed job starts again at its first attempt", () => {
  expect(jobStatusLabel(makeJob('j1', 'queued', { attempts: 0 }))).toBe('Queued');
  expect(jobStatusLabel(makeJob('j1', 'running', { attempts: 1 }))).toBe('Running');
  expect(jobStatusLabel(makeJob('j1', 'failed', { attempts: 3 }))).toBe('Failed');
  expect(jobStatusLabel(makeJob('j1', 'queued', { attempts: 2 }))).toBe('Queued · retrying (attempt 3)');
});

test("a batch's failed items are retried from its view: they go back to the queue and the view follows them", async () => {
  const reason = { code: 'fetch_failed', message: 'The image could not be fetched.' };
  let retried = false;
  const calls = mockFetch({
    [batchUrl()]: () =>
      batchList([makeJob('j1', 'succeeded'), retried ? makeJob('j2', 'queued', { queue_position: 1 }) : makeJob('j2', 'failed', { error: reason })]),
    'POST /api/batches/b1/retry-failed/': () => {
      retried = true;
      return { body: { retried: 1 } };
    },
  });
  renderComponent(<BatchProgress batch={{ batch_id: 'b1', count: 2, jobs: [makeJob('j1', 'queued'), makeJob('j2', 'queued')] }} />);

  await screen.findByText('Failed: The image could not be fetched.');
  await userEvent.click(screen.getByRole('button', { name: 'Retry 1 failed item' }));

  expect(await screen.findByText('1 item is back in the queue.')).toBeInTheDocument();
  expect(await screen.findByText('Queued · position 1')).toBeInTheDocument();
  expect(screen.getByRole('button', { name: 'Retry failed items' })).toBeDisabled();
  expect(calls.filter((call) => call.method === 'POST').map((call) => call.url)).toEqual(['/api/batches/b1/retry-failed/']);
});

test('a batch without failures offers no retry', async () => {
  mockFetch({ [batchUrl()]: batchList([makeJob('j1', 'succeeded')]) });
  renderComponent(<BatchProgress batch={{ batch_id: 'b1', count: 1, jobs: [makeJob('j1', 'queued')] }} />);

  await screen.findByText('1 of 1 done');
  expect(screen.queryByRole('button', { name: /Retry/ })).not.toBeInTheDocument();
});

test('when the last job of a batch ends, the status bar says so at once, not at its next poll', async () => {
  let queuePolls = 0;
  let batchPolls = 0;
  mockFetch({
    'GET /api/queues/': () => ({ body: [queueRow('recolor', { running: queuePolls++ === 0 ? 1 : 0 })] }),
    [batchUrl()]: () => batchList([batchPolls++ === 0 ? makeJob('j1', 'running', { progress: 50 }) : makeJob('j1', 'succeeded')]),
  });
  renderComponent(
    <>
      <ToolStatusBar tool="recolor" />
      <BatchProgress batch={{ batch_id: 'b1', count: 1, jobs: [makeJob('j1', 'queued')] }} />
    </>,
  );

  expect(await screen.findByText('Processing')).toBeInTheDocument();
  // the batch polls every 2 s; the status bar's own poll would come 5 s after its first
  expect(await screen.findByText('1 of 1 done', {}, { timeout: 4000 })).toBeInTheDocument();
  expect(await screen.findByText('System Ready', {}, { timeout: 1000 })).toBeInTheDocument();
  expect(queuePolls).toBe(2);
});
