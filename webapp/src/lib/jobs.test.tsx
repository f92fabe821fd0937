import { screen } from '@testing-library/react';

import { JOB_POLL_MS, useJob } from '@/lib/jobs';
import { mockFetch } from '@/testing/mock-fetch';
import { renderComponent } from '@/testing/render-app';
import { tick } from '@/testing/timers';
import { makeJob } from '@/testing/tool-mocks';
import type { Job, JobStatus } from '@/types/api';

const job = (status: JobStatus, progress: number): Job =>
  makeJob('j1', status, { progress, queue_position: status === 'queued' ? 2 : null, eta_seconds: status === 'succeeded' ? null : 40, batch_id: null });

function JobStatusView({ id }: { id: string | null }) {
  const query = useJob(id);
  return <p>{query.data ? `${query.data.status} ${query.data.progress}` : 'no job'}</p>;
}

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());


test.each<JobStatus>(['succeeded', 'failed', 'canceled'])('polls while queued/running and stops at %s', async (final) => {
  const answers = [job('queued', 0), job('running', 50), job(final, final === 'succeeded' ? 100 : 50)];
  const calls = mockFetch({ 'GET /api/jobs/j1/': () => ({ body: answers[Math.min(calls.length - 1, answers.length - 1)] }) });

  renderComponent(<JobStatusView id="j1" />);
  await tick(0);
  expect(await screen.findByText('queued 0')).toBeInTheDocument();

  await tick(JOB_POLL_MS);
  expect(calls).toHaveLength(2);
  expect(await screen.findByText('running 50')).toBeInTheDocument();

  await tick(JOB_POLL_MS);
  expect(await screen.findByText(new RegExp(`^${final}`))).toBeInTheDocument();
  expect(calls).toHaveLength(3);

  await tick(JOB_POLL_MS * 10);
  expect(calls).toHaveLength(3);
});

test('no id, no request', async () => {
  const calls = mockFetch({});
  renderComponent(<JobStatusView id={null} />);

  await tick(JOB_POLL_MS * 3);

  expect(screen.getByText('no job')).toBeInTheDocument();
  expect(calls).toHaveLength(0);
});
