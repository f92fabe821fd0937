import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';

import { EMPTY_LIBRARY } from '@/components/tool/model-library-notice';
import { accepted, bodyOf, followedJob, makeJob, renderTool } from '@/testing/tool-mocks';

jest.setTimeout(15000);

const log = () => screen.getByRole('log', { name: 'System log' });
const output = { index: 0, filename: 'model-swap.jpg', content_type: 'image/jpeg', size: 10, sha256: '', url: 'http://testserver/api/jobs/s1/outputs/0' };

async function fillAndRun(url = 'https://cdn.example/shot.jpg') {
  await userEvent.type(await screen.findByLabelText('Photo URL'), url);
  await userEvent.click(await screen.findByRole('radio', { name: /Ana/ }));
  await userEvent.click(screen.getByRole('button', { name: 'Run' }));
}

test('Run asks for the job at once, shows its real progress, then the result with Download and New Swap', async () => {
  const calls = renderTool('/model-swapper', followedJob('/api/model-swap/process', [
      makeJob('s1', 'queued', { tool: 'model-swap', queue_position: 2, eta_seconds: 40 }),
      makeJob('s1', 'running', { tool: 'model-swap', progress: 55, eta_seconds: 8 }),
      makeJob('s1', 'succeeded', { tool: 'model-swap', outputs: [output] }),
    ]),);
  await fillAndRun();

  const post = calls.find((call) => call.method === 'POST')!;
  expect(post.headers.Prefer).toBe('respond-async');
  expect(bodyOf(post)).toEqual({ image_url: 'https://cdn.example/shot.jpg', modelId: 'ana' });
  expect(await screen.findByText('Queued · position 2 · ETA ~40s')).toBeInTheDocument();
  expect(await screen.findByText('Running · ETA ~8s', {}, { timeout: 4000 })).toBeInTheDocument();
  expect(screen.getByRole('progressbar')).toHaveAttribute('aria-valuenow', '55');

  const result = await screen.findByRole('img', { name: 'Model swap result' }, { timeout: 4000 });
  expect(result).toHaveAttribute('src', output.url);
  const results = screen.getByRole('region', { name: 'Result' });
  expect(within(results).getByRole('link', { name: 'Download' })).toHaveAttribute('download', 'model-swap.jpg');
  expect(log()).toHaveTextContent(/^SYSTEM LOG: Request sent. Waiting for result…SYSTEM LOG: Result ready.$/);

  await userEvent.click(within(results).getByRole('button', { name: 'New Swap' }));
  expect(screen.getByLabelText('Photo URL')).toHaveValue('');
  expect(screen.getByRole('radio', { name: /Ana/ })).not.toBeChecked();
  expect(screen.queryByRole('img', { name: 'Model swap result' })).not.toBeInTheDocument();
});

test('a missing model or a URL that is not http(s) is an alert and sends nothing', async () => {
  const calls = renderTool('/model-swapper');
  await userEvent.type(await screen.findByLabelText('Photo URL'), 'https://cdn.example/shot.jpg');
  await userEvent.click(screen.getByRole('button', { name: 'Run' }));
  expect(log()).toHaveTextContent('SYSTEM ALERT: Provide a photo URL and choose a model.');

  await userEvent.click(await screen.findByRole('radio', { name: /Ana/ }));
  await userEvent.clear(screen.getByLabelText('Photo URL'));
  await userEvent.type(screen.getByLabelText('Photo URL'), 'ftp://cdn.example/shot.jpg');
  await userEvent.click(screen.getByRole('button', { name: 'Run' }));
  expect(log()).toHaveTextContent('SYSTEM ALERT: The photo URL must be an http or https link.');
  expect(calls.some((call) => call.method === 'POST')).toBe(false);
});

test('a failed job logs its reason and offers New Swap', async () => {
  renderTool('/model-swapper', {
    'POST /api/model-swap/process': accepted(makeJob('s2', 'queued', { tool: 'model-swap' })),
    'GET /api/jobs/s2/': { body: makeJob('s2', 'failed', { error: { code: 'no_face', message: 'No face was found in the catalogue photo.' } }) },
  });
  await fillAndRun();
  expect(await screen.findByText('SYSTEM ERROR: No face was found in the catalogue photo.')).toBeInTheDocument();
  expect(screen.getByRole('button', { name: 'New Swap' })).toBeInTheDocument();
  expect(screen.getByRole('button', { name: 'Run' })).toBeEnabled();
});

test('an empty library is explained and Run stays off', async () => {
  renderTool('/model-swapper', { 'GET /api/models/': { body: [] } });
  expect(await screen.findByText(new RegExp(EMPTY_LIBRARY.replace(/[.:]/g, '.')))).toBeInTheDocument();
  expect(screen.getByRole('button', { name: 'Run' })).toBeDisabled();
});
