import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';

import { EMPTY_LIBRARY } from '@/components/tool/model-library-notice';
import { swapResult } from '@/features/model-swapper/model-swapper-page';
import { mockFetch } from '@/testing/mock-fetch';
import { renderApp } from '@/testing/render-app';
import { bodyOf, toolPageRoutes } from '@/testing/tool-mocks';

test('sends the photo URL and the chosen model; shows the result with Download', async () => {
  const calls = mockFetch(toolPageRoutes({ 'POST /api/model-swap/process': { body: { success: true, image_data: { data: 'SWAP' }, url: '/x', job_id: 'j1' } } }));
  renderApp('/model-swapper');
  await userEvent.type(await screen.findByLabelText('Photo URL'), 'https://cdn.example/shot.jpg');
  await userEvent.click(await screen.findByRole('radio', { name: /Ana/ }));
  await userEvent.click(screen.getByRole('button', { name: 'Run' }));
  expect(await screen.findByRole('img', { name: 'Model swap result' })).toHaveAttribute('src', 'data:image/png;base64,SWAP');
  expect(bodyOf(calls.find((call) => call.method === 'POST')!)).toEqual({ image_url: 'https://cdn.example/shot.jpg', modelId: 'ana' });
  expect(screen.getByRole('button', { name: 'Download' })).toBeInTheDocument();
});

test('an empty library is explained and Run stays off', async () => {
  mockFetch(toolPageRoutes({ 'GET /api/models/': { body: [] } }));
  renderApp('/model-swapper');
  expect(await screen.findByText(new RegExp(EMPTY_LIBRARY.replace(/[.:]/g, '.')))).toBeInTheDocument();
  expect(screen.getByRole('button', { name: 'Run' })).toBeDisabled();
});

test('a JPEG answer (base64 /9j/…) shows as a JPEG data URL, not as a path of the site', async () => {
  mockFetch(toolPageRoutes({ 'POST /api/model-swap/process': { body: { success: true, image_data: { data: '/9j/4AAQSkZJRg' }, url: '/x', job_id: 'j1' } } }));
  renderApp('/model-swapper');
  await userEvent.type(await screen.findByLabelText('Photo URL'), 'https://cdn.example/shot.jpg');
  await userEvent.click(await screen.findByRole('radio', { name: /Ana/ }));
  await userEvent.click(screen.getByRole('button', { name: 'Run' }));
  expect(await screen.findByRole('img', { name: 'Model swap result' })).toHaveAttribute('src', 'data:image/jpeg;base64,/9j/4AAQSkZJRg');
});

test('swapResult names the download after the image type', () => {
  expect(swapResult({ image_data: { data: '/9j/AAA' } })).toEqual({ src: 'data:image/jpeg;base64,/9j/AAA', filename: 'model-swap.jpg' });
  expect(swapResult({ image_data: { data: 'iVBORw0K' } })).toEqual({ src: 'data:image/png;base64,iVBORw0K', filename: 'model-swap.png' });
  expect(swapResult({ url: 'http://localhost/api/jobs/j1/outputs/0' })?.src).toBe('http://localhost/api/jobs/j1/outputs/0');
  expect(swapResult({ success: false })).toBeNull();
});
