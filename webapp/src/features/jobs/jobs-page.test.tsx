import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';

import { mockFetch } from '@/testing/mock-fetch';
import { renderApp } from '@/testing/render-app';
import { batchList, batchUrl, makeJob, renderTool, toolPageRoutes } from '@/testing/tool-mocks';

const page = (jobs: ReturnType<typeof makeJob>[], count = jobs.length, next: string | null = null) => ({
  body: { count, next, previous: null, results: jobs },
});

const done = makeJob('j-done-1', 'succeeded', {
  tool: 'recolor',
  finished_at: '2025-05-01T10:01:00Z',
  outputs: [{ index: 0, filename: 'shirt_recolor.png', content_type: 'image/png', size: 10, sha256: 'x', url: 'http://testserver/api/jobs/j-done-1/outputs/0' }],
});
const failed = makeJob('j-failed-1', 'failed', {
  tool: 'recolor',
  input: { image_url: 'https://cdn.example/gone.jpg' },
  error: { code: 'fetch_failed', message: 'The image could not be fetched (404).' },
  finished_at: '2025-05-01T10:00:30Z',
});
const loose = makeJob('j-loose-1', 'running', { tool: 'earfit', batch_id: null, progress: 30 });

test('the user menu leads to the job history, which lists each job with its reason and outputs', async () => {
  renderTool('/', { 'GET /api/jobs/?limit=50': page([loose, failed, done]) });

  await userEvent.click(await screen.findByRole('button', { name: 'ana@maison.example' }));
  await userEvent.click(screen.getByRole('menuitem', { name: 'Job history' }));

  const table = await screen.findByRole('table', { name: 'Jobs' });
  await waitFor(() => expect(document.title).toBe('Jobs · Atelier'));
  const rows = within(table).getAllByRole('row').slice(1);
  expect(rows).toHaveLength(3);
  expect(within(rows[0]).getByText('Earfit')).toBeInTheDocument();
  expect(within(rows[0]).getByText('Running')).toBeInTheDocument();
  expect(within(rows[1]).getByText('Failed')).toHaveClass('status-error');
  expect(within(rows[1]).getByText('The image could not be fetched (404).')).toBeInTheDocument();
  expect(within(rows[2]).getByRole('link', { name: 'shirt_recolor.png' })).toHaveAttribute('href', 'http://testserver/api/jobs/j-done-1/outputs/0');
  expect(within(rows[2]).getByRole('link', { name: 'Batch b1' })).toHaveAttribute('href', '/jobs?batch=b1');
  expect(screen.getByText('1–3 of 3')).toBeInTheDocument();
});

test('filters go to the API and into the address', async () => {
  const calls = mockFetch(
    toolPageRoutes({
      'GET /api/jobs/?limit=50': page([failed, done]),
      'GET /api/jobs/?tool=recolor&status=failed&created_after=2025-05-01&created_before=2025-05-02&limit=50': page([failed]),
    }),
  );
  const { getRouter } = renderApp('/jobs');
  await screen.findByRole('table', { name: 'Jobs' });
  const form = screen.getByRole('form', { name: 'Filter jobs' });

  await within(form).findByRole('option', { name: 'Recolor' }); // the catalogue's tools
  await userEvent.selectOptions(within(form).getByLabelText('Tool'), 'recolor');
  await userEvent.selectOptions(within(form).getByLabelText('Status'), 'failed');
  await userEvent.type(within(form).getByLabelText('From'), '2025-05-01');
  await userEvent.type(within(form).getByLabelText('To'), '2025-05-02');
  await userEvent.click(within(form).getByRole('button', { name: 'Filter' }));

  await waitFor(() => expect(screen.getAllByRole('row')).toHaveLength(2));
  expect(getRouter().location.search).toBe('?tool=recolor&status=failed&created_after=2025-05-01&created_before=2025-05-02');
  expect(calls.at(-1)?.url).toBe('/api/jobs/?tool=recolor&status=failed&created_after=2025-05-01&created_before=2025-05-02&limit=50');
  expect(screen.getByLabelText('Status')).toHaveValue('failed');

  await userEvent.click(screen.getByRole('link', { name: 'Clear' }));
  await waitFor(() => expect(getRouter().location.search).toBe(''));
});

test('a batch shows every item, its failures with reasons, retries the failed ones and links the report', async () => {
  let retried = false;
  const queued = { ...failed, status: 'queued' as const, error: null, finished_at: null };
  const batch = () => batchList(retried ? [queued, done] : [failed, done]);
  const calls = renderTool('/jobs?batch=b1', {
    [batchUrl('b1')]: batch,
    'GET /api/jobs/?batch=b1&limit=50': () => page(retried ? [queued, done] : [failed, done]),
    'POST /api/batches/b1/retry-failed/': () => {
      retried = true;
      return { body: { retried: 1 } };
    },
  });

  const panel = await screen.findByRole('region', { name: 'Batch b1' });
  expect(within(panel).getByRole('status')).toHaveTextContent('1 of 2 done · 1 failed');
  expect(within(panel).getByText('1. gone.jpg')).toBeInTheDocument();
  expect(within(panel).getByText('Failed: The image could not be fetched (404).')).toBeInTheDocument();
  expect(screen.getByRole('link', { name: 'Download report' })).toHaveAttribute('href', '/api/batches/b1/report.csv');

  await userEvent.click(screen.getByRole('button', { name: 'Retry 1 failed item' }));

  expect(await screen.findByText('1 item is back in the queue.')).toBeInTheDocument();
  expect(calls.filter((call) => call.method === 'POST').map((call) => call.url)).toEqual(['/api/batches/b1/retry-failed/']);
  // the batch and the list were asked again, and show the item queued
  await waitFor(() => expect(within(panel).getByRole('status')).toHaveTextContent('1 of 2 done'));
  expect(within(panel).queryByText(/Failed:/)).not.toBeInTheDocument();
  expect(screen.getByRole('button', { name: 'Retry failed items' })).toBeDisabled();
});

test('a bad date answer is shown, not swallowed', async () => {
  renderTool('/jobs?created_after=soon', {
    'GET /api/jobs/?created_after=soon&limit=50': {
      status: 400,
      body: { error: 'invalid', message: 'Enter an ISO date (2026-11-24) or date-time (2026-11-24T18:00:00Z).', fields: {} },
    },
  });

  expect(await screen.findByRole('alert')).toHaveTextContent('Could not load the jobs: Enter an ISO date');
});

test('a long history pages through the API with offsets', async () => {
  const first = Array.from({ length: 50 }, (_, i) => makeJob(`j-${i}`, 'succeeded'));
  const calls = mockFetch(
    toolPageRoutes({
      'GET /api/jobs/?limit=50': page(first, 120, '/api/jobs/?limit=50&offset=50'),
      'GET /api/jobs/?offset=50&limit=50': page([makeJob('j-50', 'failed')], 120),
    }),
  );
  const { getRouter } = renderApp('/jobs');
  expect(await screen.findByText('1–50 of 120')).toBeInTheDocument();
  expect(screen.getByRole('button', { name: 'Newer' })).toBeDisabled();

  await userEvent.click(screen.getByRole('button', { name: 'Older' }));

  expect(await screen.findByText('51–51 of 120')).toBeInTheDocument();
  expect(screen.getByRole('button', { name: 'Older' })).toBeDisabled();
  expect(getRouter().location.search).toBe('?offset=50');
  expect(calls.at(-1)?.url).toBe('/api/jobs/?offset=50&limit=50');
});

test('past the counted bound the total reads as a lower bound and Older follows the next page', async () => {
  const first = Array.from({ length: 50 }, (_, i) => makeJob(`j-${i}`, 'succeeded'));
  mockFetch(
    toolPageRoutes({
      'GET /api/jobs/?limit=50': page(first, 1000, '/api/jobs/?limit=50&offset=50'),
    }),
  );
  renderApp('/jobs');
  expect(await screen.findByText('1–50 of 1,000+')).toBeInTheDocument();
  expect(screen.getByRole('button', { name: 'Older' })).toBeEnabled();
});
