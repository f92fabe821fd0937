import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';

import { fill } from '@/testing/fill';
import { accepted, bodyOf, makeJob, recentJobs, recentJobsUrl, renderTool } from '@/testing/tool-mocks';

const output = { index: 0, filename: 'restyle.png', content_type: 'image/png', size: 1, sha256: '', url: '/api/jobs/r1/outputs/0' };

test('Run Restyle waits for both URLs, sends them trimmed and toasts the outcome', async () => {
  const calls = renderTool('/restyle-tool', {
    'POST /api/restyle/garment-restyle': accepted(makeJob('r1', 'queued', { tool: 'restyle' })),
    'GET /api/jobs/r1/': { body: makeJob('r1', 'succeeded', { tool: 'restyle', outputs: [output] }) },
  });
  const run = await screen.findByRole('button', { name: 'Run Restyle' });
  expect(run).toBeDisabled();
  await userEvent.type(screen.getByLabelText('Full Body Outfit'), ' https://cdn.example/look.jpg');
  expect(run).toBeDisabled();
  await userEvent.type(screen.getByLabelText('Garment Shot'), 'https://cdn.example/shirt.jpg ');

  await userEvent.click(run);

  expect(await screen.findByText('✅ Restyle Complete!')).toBeInTheDocument();
  expect(bodyOf(calls.find((call) => call.method === 'POST')!)).toEqual({ garment_url: 'https://cdn.example/shirt.jpg', outfit_url: 'https://cdn.example/look.jpg' });
  expect(screen.getByRole('img', { name: 'Restyled outfit' })).toHaveAttribute('src', output.url);
  expect(screen.getByRole('link', { name: 'Download' })).toHaveAttribute('download', 'restyle.png');
  await userEvent.click(screen.getByRole('button', { name: 'New Restyle' }));
  expect(screen.getByLabelText('Full Body Outfit')).toHaveValue('');
});

test('a refused request: ❌ Restyle Failed with the status text', async () => {
  renderTool('/restyle-tool', { 'POST /api/restyle/garment-restyle': { status: 429, body: { error: 'throttled', message: 'Slow down' } } });
  await fill({ 'Full Body Outfit': 'https://cdn.example/look.jpg', 'Garment Shot': 'https://cdn.example/shirt.jpg' });

  await userEvent.click(screen.getByRole('button', { name: 'Run Restyle' }));

  expect(await screen.findByRole('alert')).toHaveTextContent('❌ Restyle FailedRestyle failed: Too Many Requests');
});

test('after a reload the recent jobs show the failed restyle with its reason', async () => {
  renderTool('/restyle-tool', {
    [recentJobsUrl('restyle')]: recentJobs([
      makeJob('r2', 'failed', {
        tool: 'restyle',
        input: { outfit_url: 'https://cdn.example/look.jpg', garment_url: 'https://cdn.example/notes.jpg' },
        error: { code: 'unsupported_image', message: 'The garment shot is not an image.' },
      }),
    ]),
  });

  const log = await screen.findByRole('region', { name: 'Recent jobs' });
  const row = (await within(log).findAllByRole('row'))[1];
  expect(within(row).getByText('look.jpg + notes.jpg')).toBeInTheDocument();
  expect(within(row).getByText('Failed')).toBeInTheDocument();
  expect(within(row).getByText('The garment shot is not an image.')).toBeInTheDocument();
  // the page itself is ready for a new run: no toast, no result
  expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  expect(screen.getByText('The result shows here.')).toBeInTheDocument();
});
