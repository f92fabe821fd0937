import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';

import { fill } from '@/testing/fill';
import { mockFetch } from '@/testing/mock-fetch';
import { renderApp } from '@/testing/render-app';
import { bodyOf, renderTool, toolPageRoutes } from '@/testing/tool-mocks';

const TEMPLATES = [
  { title: 'Custom', camera_details: '' },
  { title: 'Warm 70s Film Look', camera_details: 'Kodak Portra, warm tones' },
];
const ANALYSIS = { scene_composition: 'rooftop', pose_action: 'walking', lighting: 'golden hour', color_style: 'warm', camera_details: '50mm' };

const routes = (extra = {}) =>
  toolPageRoutes({ 'GET /api/camera-templates/': { body: TEMPLATES }, 'POST /api/editorial/analyze': { body: [ANALYSIS] }, ...extra });

test('a bad reference URL shows the invalid-URL toast and makes no call', async () => {
  const calls = mockFetch(routes());
  renderApp('/editorial');
  const analyze = await screen.findByRole('button', { name: 'ANALYZE' });
  expect(analyze).toBeDisabled();
  await userEvent.type(screen.getByLabelText('Reference Image URL (optional)'), 'ftp://x/y.jpg{Enter}');
  expect(await screen.findByText('Please enter a valid HTTP/HTTPS URL')).toBeInTheDocument();
  expect(screen.getByText('Invalid URL')).toBeInTheDocument();
  expect(calls.filter((call) => call.method === 'POST')).toHaveLength(0);
});

test('Enter analyses; edited fields are kept; Refill re-applies; a template sets Camera Details', async () => {
  const calls = mockFetch(routes());
  renderApp('/editorial');
  await fill({ Lighting: 'studio strobe', 'Reference Image URL (optional)': 'https://cdn.example/ref.jpg{Enter}' });
  expect(await screen.findByText('Reference image analyzed successfully')).toBeInTheDocument();
  expect(bodyOf(calls.find((call) => call.url === '/api/editorial/analyze')!)).toEqual({ image_reference: 'https://cdn.example/ref.jpg' });
  expect(screen.getByRole('region', { name: 'Analysis Complete' })).toBeInTheDocument();
  expect(screen.getByLabelText('Scene Composition')).toHaveValue('rooftop');
  expect(screen.getByLabelText(/^Lighting/)).toHaveValue('studio strobe');

  await userEvent.click(screen.getByRole('button', { name: 'Refill Fields' }));
  expect(screen.getByLabelText(/^Lighting/)).toHaveValue('golden hour');

  await userEvent.click(await screen.findByRole('button', { name: 'Warm 70s Film Look' }));
  expect(screen.getByLabelText(/^Camera Details/)).toHaveValue('Kodak Portra, warm tones');
  await userEvent.click(screen.getByRole('button', { name: 'Reset Fields' }));
  expect(screen.getByLabelText(/^Camera Details/)).toHaveValue('');
});

test('a preset file that is not JSON shows Invalid File; a good one fills every field', async () => {
  mockFetch(routes());
  renderApp('/editorial');
  const input = await screen.findByTestId('preset-file');
  fireEvent.change(input, { target: { files: [new File(['{oops'], 'look.json', { type: 'application/json' })] } });
  expect(await screen.findByText('The selected file is not a valid preset file')).toBeInTheDocument();
  expect(screen.getByText('Invalid File')).toBeInTheDocument();

  fireEvent.change(input, { target: { files: [new File([JSON.stringify({ sceneComposition: 'beach', modelFeatures: 'freckles' })], 'beach.json', { type: 'application/json' })] } });
  expect(await screen.findByText('Preset has been applied to the form successfully')).toBeInTheDocument();
  expect(screen.getByLabelText(/^Scene Composition/)).toHaveValue('beach');
  expect(screen.getByLabelText(/^Model Features/)).toHaveValue('freckles');
  expect(screen.getByLabelText(/^Lighting/)).toHaveValue('');
});

test('Download Preset asks a name; cancelling does nothing', async () => {
  mockFetch(routes());
  const prompt = jest.spyOn(window, 'prompt').mockReturnValue(null);
  renderApp('/editorial');
  await userEvent.click(await screen.findByRole('button', { name: 'Download Preset' }));
  expect(prompt).toHaveBeenCalled();
  expect(screen.queryByText('Preset Downloaded')).toBeNull();
});

test('processing: validation, the countdown, the call body and three padded results', async () => {
  let answer: (value: unknown) => void = () => undefined;
  const calls = mockFetch(routes());
  const fetchMock = globalThis.fetch as jest.Mock;
  const original = fetchMock.getMockImplementation()!;
  fetchMock.mockImplementation((input: RequestInfo, init: RequestInit = {}) => {
    if (String(input) === '/api/editorial/generate') {
      calls.push({ method: 'POST', url: String(input), init, headers: {} });
      return new Promise((resolve) => {
        answer = resolve;
      });
    }
    return original(input, init);
  });
  renderApp('/editorial');
  const process = await screen.findByRole('button', { name: 'Process Editorial' });
  expect(process).toBeDisabled();
  await userEvent.type(screen.getByLabelText('Catalog Image URL'), 'not a url');
  await userEvent.click(process);
  expect(await screen.findByText('Please enter a valid catalog image URL')).toBeInTheDocument();

  await userEvent.clear(screen.getByLabelText('Catalog Image URL'));
  await userEvent.type(screen.getByLabelText('Catalog Image URL'), 'https://cdn.example/look.png');
  await userEvent.type(screen.getByLabelText(/^Scene Composition/), 'rooftop');
  jest.useFakeTimers();
  fireEvent.click(screen.getByRole('button', { name: 'Process Editorial' }));
  expect(within(screen.getByRole('region', { name: 'Ready to Process' })).getByText('ETA 35s')).toBeInTheDocument();
  act(() => jest.advanceTimersByTime(3000));
  expect(within(screen.getByRole('region', { name: 'Ready to Process' })).getByText('ETA 32s')).toBeInTheDocument();
  act(() => jest.advanceTimersByTime(40000));
  expect(within(screen.getByRole('region', { name: 'Ready to Process' })).getByText('FINALIZING...')).toBeInTheDocument();
  jest.useRealTimers();

  // the request leaves from the submission's mutation, a few microtasks after the click
  await waitFor(() => expect(calls.some((call) => call.url === '/api/editorial/generate')).toBe(true));
  const sent = bodyOf(calls.find((call) => call.url === '/api/editorial/generate')!);
  expect(sent).toMatchObject({ outfit: 'https://cdn.example/look.png', scene_composition: 'rooftop', lead: 'Generate a fashion editorial photograph.', original_prompt: 'rooftop' });
  await act(async () => answer({ ok: true, status: 200, text: async () => JSON.stringify({ result1: 'AAA', result2: 'BBB', notes: '' }) }));
  expect(await screen.findByText('Your editorial image has been generated successfully')).toBeInTheDocument();
  const images = screen.getAllByRole('img', { name: /^Result \d$/ });
  expect(images.map((img) => img.getAttribute('src'))).toEqual(['data:image/png;base64,AAA', 'data:image/png;base64,BBB', 'data:image/png;base64,BBB']);
  await userEvent.click(screen.getAllByRole('button', { name: 'Expand' })[0]);
  expect(screen.getByRole('dialog', { name: 'Result 1' })).toBeInTheDocument();
  await userEvent.keyboard('{Escape}');
  await userEvent.click(screen.getByRole('button', { name: 'New Generation' }));
  expect(screen.queryByRole('img', { name: 'Result 1' })).toBeNull();
});

test('Tonelab: its own messages and body (reference passed on)', async () => {
  const calls = renderTool('/tonelab', {
    'GET /api/camera-templates/': { body: TEMPLATES },
    'POST /api/tonelab/generate': { status: 422, body: { error: 'job_failed', message: 'The model refused.' } },
  });
  expect(await screen.findByText('Base Editorial Image URL')).toBeInTheDocument();
  expect(screen.queryByText(/Advanced Options/)).toBeNull();
  await userEvent.type(screen.getByLabelText('Base Editorial Image URL'), 'nope');
  await userEvent.click(screen.getByRole('button', { name: 'Process Tonelab' }));
  expect(await screen.findByText('Please enter a valid Tonelab URL')).toBeInTheDocument();
  await userEvent.clear(screen.getByLabelText('Base Editorial Image URL'));
  await fill({ 'Base Editorial Image URL': 'https://cdn.example/base.jpg', 'Reference Image URL (optional)': 'https://cdn.example/ref.jpg' });
  await userEvent.type(screen.getByLabelText(/^Lighting/), 'neon');
  await userEvent.click(screen.getByRole('button', { name: 'Process Tonelab' }));
  expect(await screen.findByText('HTTP 422: The model refused.')).toBeInTheDocument();
  expect(bodyOf(calls.find((call) => call.url === '/api/tonelab/generate')!)).toMatchObject({ outfit: 'https://cdn.example/base.jpg', reference: 'https://cdn.example/ref.jpg', lighting: 'neon', original_prompt: 'neon' });

  fireEvent.change(screen.getByTestId('preset-file'), { target: { files: [new File(['x'], 'notes.txt', { type: 'text/plain' })] } });
  expect(await screen.findByText('Failed to load preset. Please check the file format.')).toBeInTheDocument();
});
