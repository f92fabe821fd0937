import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';

import { accepted, batchList, batchUrl, bodyOf, makeJob, renderTool } from '@/testing/tool-mocks';

const statusBar = () => screen.getByRole('group', { name: 'Tool status' });

test('Run needs a model; it sends the chosen one, toasts Generation Started! and follows the jobs to the end', async () => {
  let polls = 0;
  const running = [makeJob('m1', 'running', { tool: 'remodel', progress: 30, eta_seconds: 12 })];
  const done = [makeJob('m1', 'succeeded', { tool: 'remodel' })];
  const calls = renderTool('/remodel', {
    'POST /api/remodel/process': accepted({ batch_id: 'b1', count: 1, jobs: running, skipped: [] }),
    [batchUrl()]: () => batchList(polls++ < 1 ? running : done),
  });
  const run = await screen.findByRole('button', { name: 'Run' });
  expect(run).toBeDisabled();

  await userEvent.click(await screen.findByRole('radio', { name: 'Ana' }));
  expect(within(statusBar()).getByText('Model').nextElementSibling).toHaveTextContent('Ana');
  await userEvent.click(run);

  expect(bodyOf(calls.find((call) => call.method === 'POST')!)).toEqual({ modelId: 'ana', modelPicture: '/api/models/ana/photo' });
  expect(await screen.findByText('Generation Started!')).toBeInTheDocument();
  expect(await screen.findByText('Running · 30% · ETA ~12s')).toBeInTheDocument();
  // While the jobs run the bar says so, with their ETA, and a second run is blocked.
  expect(within(statusBar()).getByText('Processing')).toBeInTheDocument();
  expect(within(statusBar()).getByText('ETA').nextElementSibling).toHaveTextContent('~12s');
  expect(run).toBeDisabled();

  expect(await within(statusBar()).findByText('Complete', {}, { timeout: 4000 })).toBeInTheDocument();
  expect(screen.getByText('1 of 1 done')).toBeInTheDocument();
  expect(run).toBeEnabled();
});

test('an empty library is explained and Run stays disabled', async () => {
  renderTool('/remodel', { 'GET /api/models/': { body: [] } });

  expect(await screen.findByText(/Your model library is empty: ask Atelier to add your models\./)).toBeInTheDocument();
  expect(screen.getByRole('button', { name: 'Run' })).toBeDisabled();
});

test('a job that failed never ends on Complete: the bar says Failed and the list gives the reason', async () => {
  const failed = [makeJob('m1', 'failed', { tool: 'remodel', error: { code: 'no_face', message: 'No face was found in the catalogue photo.' } })];
  renderTool('/remodel', {
    'POST /api/remodel/process': accepted({ batch_id: 'b1', count: 1, jobs: [makeJob('m1', 'queued', { tool: 'remodel' })], skipped: [] }),
    [batchUrl()]: batchList(failed),
  });
  await userEvent.click(await screen.findByRole('radio', { name: 'Ana' }));
  await userEvent.click(screen.getByRole('button', { name: 'Run' }));

  expect(await within(statusBar()).findByText('Failed')).toBeInTheDocument();
  expect(within(statusBar()).queryByText('Complete')).not.toBeInTheDocument();
  expect(screen.getByText('0 of 1 done · 1 failed')).toBeInTheDocument();
  expect(screen.getByText('Failed: No face was found in the catalogue photo.')).toBeInTheDocument();
});
