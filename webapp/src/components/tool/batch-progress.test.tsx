import { screen, within } from '@testing-library/react';

import { BatchProgressView } from '@/components/tool/batch-progress';
import { JobProgress } from '@/components/tool/job-result';
import { jobStatusLabel } from '@/lib/jobs';
import { renderComponent } from '@/testing/render-app';
import { makeJob } from '@/testing/tool-mocks';

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
