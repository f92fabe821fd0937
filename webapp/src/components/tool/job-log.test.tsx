import { act, fireEvent, screen, within } from '@testing-library/react';
import { useState } from 'react';

import { JobLog } from '@/components/tool/job-log';
import { RECENT_JOBS_POLL_MS } from '@/lib/jobs';
import { mockFetch } from '@/testing/mock-fetch';
import { renderComponent } from '@/testing/render-app';
import { makeJob, recentJobs, recentJobsUrl } from '@/testing/tool-mocks';
import type { Job } from '@/types/api';

const output = (index: number, filename: string) => ({ index, filename, content_type: 'image/png', size: 1, sha256: '', url: `/api/jobs/j1/outputs/${index}` });

async function advance(ms: number) {
  await act(async () => {
    await jest.advanceTimersByTimeAsync(ms);
  });
}

afterEach(() => jest.useRealTimers());

test('each job with its status, source, reason and output links; newest first, the last 5', async () => {
  const jobs: Job[] = [
    makeJob('j1', 'succeeded', { input: { image_url: 'https://cdn.example/looks/polo-front.jpg' }, outputs: [output(0, 'recolor-0.png'), output(1, 'recolor-1.png')] }),
    makeJob('j2', 'failed', { input: { ring_image: 'https://cdn.example/pearl-drop.png', model_name: 'Ana' }, error: { code: 'no_ear', message: 'No ear was found on the model.' } }),
    makeJob('j3', 'running', { progress: 42.4, input: { outfit_url: 'https://cdn.example/look.jpg', garment_url: 'https://cdn.example/shirt.jpg' } }),
    makeJob('j4', 'queued', { attempts: 1 }), // back in the queue after its first run was lost
    makeJob('j5', 'canceled', { error: { code: 'canceled', message: 'Canceled by ops.' } }),
    makeJob('j6', 'succeeded', { input: { image_url: 'https://cdn.example/sixth.jpg' } }),
  ];
  const calls = mockFetch({ [recentJobsUrl('recolor')]: recentJobs(jobs) });

  renderComponent(<JobLog tool="recolor" />);

  const log = screen.getByRole('region', { name: 'Recent jobs' });
  const table = await within(log).findByRole('table', { name: 'Recent jobs' });
  expect(calls.map((call) => call.url)).toEqual(['/api/jobs/?tool=recolor&limit=5']);
  expect(within(table).getAllByRole('columnheader').map((th) => th.textContent)).toEqual(['Created', 'Source', 'Status', 'Reason', 'Outputs']);
  const rows = within(table).getAllByRole('row').slice(1);
  expect(rows).toHaveLength(5);
  expect(within(table).queryByText('sixth.jpg')).not.toBeInTheDocument();

  // succeeded: its outputs open from their URLs
  expect(within(rows[0]).getByText('polo-front.jpg')).toBeInTheDocument();
  expect(within(rows[0]).getByText('Succeeded')).toHaveClass('status-success');
  expect(within(rows[0]).getByRole('link', { name: 'recolor-0.png' })).toHaveAttribute('href', '/api/jobs/j1/outputs/0');
  expect(within(rows[0]).getByRole('link', { name: 'recolor-1.png' })).toHaveAttribute('href', '/api/jobs/j1/outputs/1');
  // failed: the reason, the product and the library model
  expect(within(rows[1]).getByText('Failed')).toHaveClass('status-error');
  expect(within(rows[1]).getByText('No ear was found on the model.')).toBeInTheDocument();
  expect(within(rows[1]).getByText('pearl-drop.png · Ana')).toBeInTheDocument();
  expect(within(rows[1]).queryByRole('link')).not.toBeInTheDocument();
  // running with its progress; queued again after a lost run; canceled with its reason
  expect(within(rows[2]).getByText('Running · 42 %')).toHaveClass('status-processing');
  expect(within(rows[2]).getByText('look.jpg + shirt.jpg')).toBeInTheDocument();
  expect(within(rows[3]).getByText('Queued · retrying (attempt 2)')).toHaveClass('status-processing');
  expect(within(rows[4]).getByText('Canceled')).toHaveClass('status-error');
  expect(within(rows[4]).getByText('Canceled by ops.')).toBeInTheDocument();
});

test('an empty log says so, and a log that cannot load says why', async () => {
  mockFetch({ [recentJobsUrl('rebody')]: recentJobs([]), [recentJobsUrl('restyle')]: { status: 500, body: { error: 'server_error', message: 'Internal Server Error' } } });
  renderComponent(
    <>
      <JobLog tool="rebody" />
      <JobLog tool="restyle" />
    </>,
  );

  expect(await screen.findByText('No jobs of this tool yet.')).toBeInTheDocument();
  expect(await screen.findByText(/^Could not load the recent jobs/)).toBeInTheDocument();
});

test('it polls while a job is queued or running and stops once every job has ended', async () => {
  jest.useFakeTimers();
  let answer = [makeJob('j1', 'running', { progress: 40 }), makeJob('j0', 'succeeded')];
  const calls = mockFetch({ [recentJobsUrl('recolor')]: () => recentJobs(answer) });
  renderComponent(<JobLog tool="recolor" />);
  expect(await screen.findByText('Running · 40 %')).toBeInTheDocument();
  expect(calls).toHaveLength(1);

  await advance(RECENT_JOBS_POLL_MS);
  expect(calls).toHaveLength(2);

  answer = [makeJob('j1', 'failed', { error: { code: 'no_hand', message: 'No hand was found on the model to hold the bag.' } }), makeJob('j0', 'succeeded')];
  await advance(RECENT_JOBS_POLL_MS);
  expect(await screen.findByText('No hand was found on the model to hold the bag.')).toBeInTheDocument();
  expect(calls).toHaveLength(3);

  // every job has ended: no more requests
  await advance(RECENT_JOBS_POLL_MS * 5);
  expect(calls).toHaveLength(3);
});

test('a new refreshKey (the batch a run got back) asks for the jobs again', async () => {
  let answer: Job[] = [];
  const calls = mockFetch({ [recentJobsUrl('remodel')]: () => recentJobs(answer) });
  function Page() {
    const [batchId, setBatchId] = useState<string | null>(null);
    return (
      <>
        <button type="button" onClick={() => setBatchId('b2')}>
          Run
        </button>
        <JobLog tool="remodel" refreshKey={batchId} />
      </>
    );
  }
  renderComponent(<Page />);
  expect(await screen.findByText('No jobs of this tool yet.')).toBeInTheDocument();

  answer = [makeJob('j1', 'failed', { input: { source: 'tee-flat.jpg', model_name: 'Ines' }, error: { code: 'no_face', message: 'No face was found in the catalogue photo.' } })];
  fireEvent.click(screen.getByRole('button', { name: 'Run' }));

  expect(await screen.findByText('No face was found in the catalogue photo.')).toBeInTheDocument();
  expect(screen.getByText('tee-flat.jpg · Ines')).toBeInTheDocument();
  expect(calls).toHaveLength(2);
});
