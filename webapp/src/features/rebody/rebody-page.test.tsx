import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';

import { fill } from '@/testing/fill';
import { accepted, bodyOf, makeJob, renderTool } from '@/testing/tool-mocks';

const video = { index: 0, filename: 'rebody.mp4', content_type: 'video/mp4', size: 1, sha256: '', url: '/api/jobs/rb1/outputs/0.mp4' };

test('runs by itself when the URL and body type are in the query string; overlay, then original and video result', async () => {
  let polls = 0;
  const calls = renderTool('/rebody?image_url=https://cdn.example/look.jpg&target_bodytype=Curvy%20Fit', {
    'POST /api/rebody/process': accepted(makeJob('rb1', 'queued', { tool: 'rebody' })),
    'GET /api/jobs/rb1/': () => ({ body: polls++ === 0 ? makeJob('rb1', 'running', { progress: 55, eta_seconds: 20 }) : makeJob('rb1', 'succeeded', { outputs: [video] }) }),
  });

  const overlay = await screen.findByRole('dialog', { name: 'Processing Your Rebody Request' });
  expect(overlay).toHaveTextContent('This usually takes about 15 seconds.');
  expect(bodyOf(calls.find((call) => call.method === 'POST')!)).toEqual({ image_url: 'https://cdn.example/look.jpg', target_bodytype: 'Curvy Fit', specs: '' });
  expect(screen.getByLabelText('Body Type')).toBeDisabled();
  expect(await screen.findByText('Processing')).toBeInTheDocument();

  const result = await screen.findByLabelText('Rebody result', {}, { timeout: 4000 });
  expect(result.tagName).toBe('VIDEO');
  expect(screen.getByRole('img', { name: 'Original look' })).toHaveAttribute('src', 'https://cdn.example/look.jpg');
  expect(screen.getByRole('link', { name: 'Download' })).toHaveAttribute('href', video.url);
  expect(screen.getByText('System Ready')).toBeInTheDocument();
});

test('missing input and a bad URL log alerts; a refusal logs SYSTEM ERROR with the message', async () => {
  renderTool('/rebody', { 'POST /api/rebody/process': { status: 400, body: { error: 'invalid', message: 'Unknown body type.' } } });
  await userEvent.click(await screen.findByRole('button', { name: 'Run' }));
  expect(screen.getByText('SYSTEM ALERT: Provide both Full Body Look Image URL and Body Type.')).toBeInTheDocument();

  await fill({ 'Full Body Look Image URL': 'https://cdn.example/look', 'Body Type': 'Petite' });
  await userEvent.click(screen.getByRole('button', { name: 'Run' }));
  expect(screen.getByText('SYSTEM ALERT: The image URL must start with http and end with an image extension.')).toBeInTheDocument();

  await userEvent.type(screen.getByLabelText('Full Body Look Image URL'), '.png');
  await userEvent.click(screen.getByRole('button', { name: 'Run' }));
  expect(await screen.findByText('SYSTEM ERROR: Unknown body type.')).toBeInTheDocument();
});
