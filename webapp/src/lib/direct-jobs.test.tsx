import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';

import { RESTYLE_TICKER, useDirectJob } from '@/lib/direct-jobs';
import { JOB_POLL_MS } from '@/lib/jobs';
import { mockFetch } from '@/testing/mock-fetch';
import { renderComponent } from '@/testing/render-app';
import { tick } from '@/testing/timers';
import { makeJob } from '@/testing/tool-mocks';
import type { Job, JobStatus } from '@/types/api';

const job = (status: JobStatus, progress: number, attempts = 1): Job =>
  makeJob('d1', status, { tool: 'restyle', progress, queue_position: status === 'queued' ? 3 : 0, eta_seconds: 20, attempts, batch_id: null });

function Bar() {
  const direct = useDirectJob('/api/restyle/garment-restyle', RESTYLE_TICKER);
  return (
    <>
      <button type="button" onClick={() => void direct.run({})}>
        Go
      </button>
      <p>progress {Math.round(direct.progress)}</p>
    </>
  );
}

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());


const shownProgress = () => Number(screen.getByText(/^progress /).textContent?.replace('progress ', ''));

test('the bar never goes back when the first real figure is below the queue-time ticker', async () => {
  // queued long enough for the spec's ticker to climb, then the job's own figures from 5 up
  const answers = [job('queued', 0), job('queued', 0), job('queued', 0), job('running', 5), job('running', 55), job('succeeded', 100)];
  let polls = 0;
  mockFetch({
    'POST /api/restyle/garment-restyle': { status: 202, body: answers[0] },
    'GET /api/jobs/d1/': () => ({ body: answers[Math.min((polls += 1), answers.length - 1)] }),
  });
  renderComponent(<Bar />);
  const user = userEvent.setup({ advanceTimers: jest.advanceTimersByTime });
  await user.click(screen.getByRole('button', { name: 'Go' }));

  const seen: number[] = [];
  for (let i = 0; i < 8; i += 1) {
    await tick(JOB_POLL_MS);
    seen.push(shownProgress());
  }

  expect(seen[1]).toBeGreaterThan(5); // the ticker ran while the job was queued
  expect(seen).toEqual([...seen].sort((a, b) => a - b)); // and nothing went back
  expect(seen[seen.length - 1]).toBe(100);
});
