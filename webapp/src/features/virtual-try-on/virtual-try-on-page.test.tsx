import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';

import { fill } from '@/testing/fill';
import { accepted, bodyOf, followedJob, makeJob, renderTool } from '@/testing/tool-mocks';

jest.setTimeout(15000);

const log = () => screen.getByRole('log', { name: 'System log' });
const output = { index: 0, filename: 'try-on.png', content_type: 'image/png', size: 10, sha256: '', url: 'http://testserver/api/jobs/t1/outputs/0' };

test('a missing URL logs the spec alert and sends nothing', async () => {
  const calls = renderTool('/virtual-try-on');
  expect(await screen.findByText('SYSTEM LOG: Waiting for input URLs…')).toBeInTheDocument();
  await userEvent.type(screen.getByLabelText('Base Image URL'), 'https://cdn.example/model.jpg');

  await userEvent.click(screen.getByRole('button', { name: 'Run' }));

  expect(log()).toHaveTextContent('SYSTEM ALERT: Provide both Desired Garment URL and Base Image URL.');
  expect(calls.some((call) => call.method === 'POST')).toBe(false);
});

test('Run asks for the job at once and shows its real progress, queue position, then the result', async () => {
  const calls = renderTool('/virtual-try-on', followedJob('/api/try-on', [
      makeJob('t1', 'queued', { tool: 'virtual-try-on', queue_position: 3, eta_seconds: 100 }),
      makeJob('t1', 'running', { tool: 'virtual-try-on', progress: 40, eta_seconds: 30 }),
      makeJob('t1', 'succeeded', { tool: 'virtual-try-on', outputs: [output] }),
    ]),);
  await fill({ 'Base Image URL': ' https://cdn.example/model.jpg ', 'Desired Garment Image URL': 'https://cdn.example/dress.jpg' });

  await userEvent.click(screen.getByRole('button', { name: 'Run' }));

  const post = calls.find((call) => call.method === 'POST')!;
  expect(post.headers.Prefer).toBe('respond-async');
  expect(bodyOf(post)).toEqual({ garmentUrl: 'https://cdn.example/dress.jpg', modelUrl: 'https://cdn.example/model.jpg' });
  expect(log()).toHaveTextContent('SYSTEM LOG: Generating…SYSTEM LOG: Request sent. Waiting for result…');
  expect(await screen.findByText('Queued · position 3 · ETA ~2m')).toBeInTheDocument();
  expect(await screen.findByText('Running · ETA ~30s', {}, { timeout: 4000 })).toBeInTheDocument();
  expect(screen.getByRole('progressbar')).toHaveAttribute('aria-valuenow', '40');

  const queuePolls = () => calls.filter((call) => call.method === 'GET' && call.url.endsWith('/api/queues/')).length;
  const before = queuePolls();
  const result = await screen.findByRole('img', { name: 'Virtual try-on result' }, { timeout: 4000 });
  expect(result).toHaveAttribute('src', output.url);
  // the status bar's figures are asked again as the job ends, not at the next 5 s poll
  await waitFor(() => expect(queuePolls()).toBeGreaterThan(before));
  const results = screen.getByRole('region', { name: 'Result' });
  expect(within(results).getByRole('link', { name: 'Download Image' })).toHaveAttribute('download', 'try-on.png');
  expect(log()).toHaveTextContent('SYSTEM LOG: Preview ready.');

  await userEvent.click(within(results).getByRole('button', { name: 'New Virtual Try-On' }));
  expect(screen.getByLabelText('Base Image URL')).toHaveValue('');
  expect(log()).toHaveTextContent(/^SYSTEM LOG: Waiting for input URLs…$/);
});

test('a failed job logs SYSTEM ERROR with its reason', async () => {
  renderTool('/virtual-try-on', {
    'POST /api/try-on': accepted(makeJob('t2', 'queued')),
    'GET /api/jobs/t2/': { body: makeJob('t2', 'failed', { error: { code: 'no_person', message: 'No person found in the base image.' } }) },
  });
  await fill({ 'Base Image URL': 'https://cdn.example/model.jpg', 'Desired Garment Image URL': 'https://cdn.example/dress.jpg' });

  await userEvent.click(screen.getByRole('button', { name: 'Run' }));

  expect(await screen.findByText('SYSTEM ERROR: No person found in the base image.')).toBeInTheDocument();
  expect(log()).toHaveTextContent('SYSTEM ERROR: Generation failed.');
});

test('a server error logs the network line', async () => {
  renderTool('/virtual-try-on', { 'POST /api/try-on': { status: 503, body: { error: 'broker_down', message: 'Queue unavailable' } } });
  await fill({ 'Base Image URL': 'https://cdn.example/model.jpg', 'Desired Garment Image URL': 'https://cdn.example/dress.jpg' });

  await userEvent.click(screen.getByRole('button', { name: 'Run' }));

  expect(await screen.findByText('SYSTEM ERROR: Network or server issue.')).toBeInTheDocument();
});
