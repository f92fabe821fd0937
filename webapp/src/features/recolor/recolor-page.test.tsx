import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';

import { mockFetch } from '@/testing/mock-fetch';
import { renderApp } from '@/testing/render-app';
import { accepted, batchList, batchUrl, bodyOf, makeJob, recentJobs, recentJobsUrl, renderTool, toolPageRoutes } from '@/testing/tool-mocks';

const URL_A = 'https://cdn.example/look-a.jpg';

async function fillCard(url: string, garment = 'polo') {
  await userEvent.type(await screen.findByLabelText('Image URL'), url);
  await userEvent.selectOptions(screen.getByLabelText('Garment Type'), garment);
}

test('Run with no complete card: No Valid Cards and the spec message, no request', async () => {
  const calls = renderTool('/recoloring');
  await userEvent.type(await screen.findByLabelText('Image URL'), URL_A); // no garment type

  await userEvent.click(screen.getByRole('button', { name: 'Run' }));

  const toast = screen.getByRole('alert');
  expect(toast).toHaveTextContent('No Valid Cards');
  expect(toast).toHaveTextContent('Please fill in at least one complete card (URL, color, and garment type)');
  expect(calls.filter((call) => call.method === 'POST')).toHaveLength(0);
});

test('Run sends the complete cards, shows the overlays, then the batch progress with failures and reasons', async () => {
  const jobs = [
    makeJob('j1', 'succeeded', { input: { image_url: URL_A } }),
    makeJob('j2', 'failed', { input: { image_url: 'https://cdn.example/b.png' }, error: { code: 'bad_image', message: 'The image could not be read.' } }),
    makeJob('j3', 'queued', { input: { image_url: 'https://cdn.example/c.png' }, queue_position: 2, eta_seconds: 150 }),
  ];
  const calls = renderTool('/recoloring', {
    'POST /api/recoloring/recolor': () => accepted({ batch_id: 'b1', count: 3, jobs: jobs.map((job) => ({ ...job, status: 'queued' })) }),
    [batchUrl()]: batchList(jobs),
  });
  await fillCard(URL_A);
  await userEvent.clear(screen.getByLabelText('Target Color'));
  await userEvent.type(screen.getByLabelText('Target Color'), '#C5B299');
  await userEvent.click(screen.getByRole('button', { name: /Add Card/ })); // a blank second card is not sent

  await userEvent.click(screen.getByRole('button', { name: 'Run' }));

  // The jobs are polled at once: one of them has failed, so the headline says so.
  const success = await screen.findByRole('dialog', { name: '1 of 3 done · 1 failed' });
  expect(within(success).getByRole('link', { name: 'Output Drive' })).toHaveAttribute('href', '/drives/recolor-output');
  const post = calls.find((call) => call.method === 'POST');
  expect(bodyOf(post!)).toEqual([{ image_url: URL_A, target_color: '#C5B299', garment_type: 'polo' }]);
  expect(post!.headers['Idempotency-Key']).toBeTruthy();

  expect(await within(success).findByText('1 of 3 done · 1 failed · ETA ~3m')).toBeInTheDocument();
  expect(within(success).getByText('Failed: The image could not be read.')).toBeInTheDocument();
  expect(success).toHaveTextContent('1 image failed: the reasons are shown below. One is still running, and 1 image went to the drive.');
  expect(success).not.toHaveTextContent('Success!');
  expect(within(success).getByText('Queued · position 2 · ETA ~3m')).toBeInTheDocument();
  expect(within(success).getByText('1. look-a.jpg')).toBeInTheDocument();

  await userEvent.click(within(success).getByRole('button', { name: 'Start New Recolor' }));
  expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  expect(screen.getAllByLabelText('Image URL')).toHaveLength(1);
  expect(screen.getByLabelText('Image URL')).toHaveValue('');
  // the batch stays followed on the page
  expect(screen.getByRole('region', { name: 'Last batch' })).toHaveTextContent('1 of 3 done');
});

test('a batch whose every job was refused says so, with each reason, never Success!', async () => {
  const jobs = [
    makeJob('j1', 'failed', { input: { image_url: URL_A }, error: { code: 'image_too_small', message: 'The garment photo is 150x200 px; its shorter side must be at least 256 px. Send a larger photo.' } }),
  ];
  renderTool('/recoloring', {
    'POST /api/recoloring/recolor': () => accepted({ batch_id: 'b1', count: 1, jobs: jobs.map((job) => ({ ...job, status: 'queued', error: null })) }),
    [batchUrl()]: batchList(jobs),
  });
  await fillCard(URL_A);

  await userEvent.click(screen.getByRole('button', { name: 'Run' }));

  const overlay = await screen.findByRole('dialog', { name: 'The image failed' });
  expect(overlay).toHaveTextContent('Nothing was written to the drive. The reason is shown under the image below.');
  expect(within(overlay).getByText('0 of 1 done · 1 failed')).toBeInTheDocument();
  expect(within(overlay).getByText('Failed: The garment photo is 150x200 px; its shorter side must be at least 256 px. Send a larger photo.')).toBeInTheDocument();
  expect(screen.queryByText(/Success!/)).not.toBeInTheDocument();
});

test('the processing overlay shows while the request is out', async () => {
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  mockFetch(toolPageRoutes({ [batchUrl()]: batchList([]) }));
  const fetchMock = globalThis.fetch as jest.Mock;
  const original = fetchMock.getMockImplementation()!;
  fetchMock.mockImplementation(async (input: RequestInfo, init?: RequestInit) => {
    if (String(input) === '/api/recoloring/recolor') {
      await gate;
      return { ok: true, status: 202, text: async () => JSON.stringify({ batch_id: 'b1', count: 0, jobs: [] }) };
    }
    return original(input, init);
  });
  renderApp('/recoloring');
  await fillCard(URL_A);

  await userEvent.click(screen.getByRole('button', { name: 'Run' }));

  expect(await screen.findByRole('dialog', { name: 'Processing Your Recolor Requests' })).toHaveTextContent('This usually takes about 90 seconds.');
  release();
  expect(await screen.findByRole('dialog', { name: 'Success!' })).toBeInTheDocument();
});

test('a 400 shows ❌ Generation Failed with the HTTP status, the server message and the card error', async () => {
  renderTool('/recoloring', {
    'POST /api/recoloring/recolor': {
      status: 400,
      body: {
        error: 'invalid',
        message: 'Card 1, image_url: The URL must point to an image (jpg, jpeg, png, gif, bmp, webp or svg).',
        fields: { 'cards.0.image_url': ['The URL must point to an image (jpg, jpeg, png, gif, bmp, webp or svg).'] },
      },
    },
  });
  await fillCard('https://cdn.example/page.html');

  await userEvent.click(screen.getByRole('button', { name: 'Run' }));

  const alerts = await screen.findAllByRole('alert');
  const toast = alerts.find((alert) => alert.classList.contains('toast'))!;
  expect(toast).toHaveTextContent('❌ Generation Failed');
  expect(toast).toHaveTextContent('HTTP error! status: 400');
  expect(screen.getByText('Card 1, image_url: The URL must point to an image (jpg, jpeg, png, gif, bmp, webp or svg).')).toBeInTheDocument();
  expect(within(screen.getByRole('listitem', { name: 'Card 1' })).getByText(/^image_url: The URL must point to an image/)).toBeInTheDocument();
  expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
});

test('Get URLs makes one card per URL and says so', async () => {
  renderTool('/recoloring', { 'GET /api/recoloring/urls': { body: [{ img_url: 'https://d/a.jpg' }, { img_url: 'https://d/b.jpg' }] } });

  await userEvent.click(await screen.findByRole('button', { name: 'Get URLs' }));

  const toast = (await screen.findByText('✅ URLs Retrieved')).closest('li')!;
  expect(toast).toHaveTextContent('✅ URLs Retrieved');
  expect(toast).toHaveTextContent('Fetched 2 URLs and created 2 cards');
  expect(screen.getAllByLabelText('Image URL').map((input) => (input as HTMLInputElement).value)).toEqual(['https://d/a.jpg', 'https://d/b.jpg']);
});

test('Get URLs failure: ❌ Failed to Fetch URLs / Could not retrieve URLs from backend', async () => {
  renderTool('/recoloring', { 'GET /api/recoloring/urls': { status: 503, body: { error: 'drive_unavailable', message: 'Drive down' } } });

  await userEvent.click(await screen.findByRole('button', { name: 'Get URLs' }));

  const toast = await screen.findByRole('alert');
  expect(toast).toHaveTextContent('❌ Failed to Fetch URLs');
  expect(toast).toHaveTextContent('Could not retrieve URLs from backend');
  expect(screen.getAllByLabelText('Image URL')).toHaveLength(1);
});

test('the colour picker falls back to #dac9b9 when the text is not a 3 or 6 digit hex', async () => {
  renderTool('/recoloring');
  const text = await screen.findByLabelText('Target Color');
  expect(text).toHaveValue('#dac9b9');

  await userEvent.clear(text);
  await userEvent.type(text, '#abc');
  expect(screen.getByLabelText('Target Color picker')).toHaveValue('#aabbcc');

  await userEvent.type(text, 'x');
  expect(screen.getByLabelText('Target Color picker')).toHaveValue('#dac9b9');
});

test('after a reload the recent jobs still show a failed job with its reason, and a done one with its output', async () => {
  renderTool('/recoloring', {
    [recentJobsUrl('recolor')]: recentJobs([
      makeJob('j2', 'failed', { input: { image_url: 'https://cdn.example/b.png' }, error: { code: 'bad_image', message: 'The image could not be read.' } }),
      makeJob('j1', 'succeeded', {
        input: { image_url: URL_A },
        outputs: [{ index: 0, filename: 'look-a_recolor.png', content_type: 'image/png', size: 1, sha256: '', url: '/api/jobs/j1/outputs/0' }],
      }),
    ]),
  });

  const log = await screen.findByRole('region', { name: 'Recent jobs' });
  const [failed, done] = (await within(log).findAllByRole('row')).slice(1);
  expect(within(failed).getByText('b.png')).toBeInTheDocument();
  expect(within(failed).getByText('Failed')).toBeInTheDocument();
  expect(within(failed).getByText('The image could not be read.')).toBeInTheDocument();
  expect(within(done).getByText('Succeeded')).toBeInTheDocument();
  expect(within(done).getByRole('link', { name: 'look-a_recolor.png' })).toHaveAttribute('href', '/api/jobs/j1/outputs/0');
});
