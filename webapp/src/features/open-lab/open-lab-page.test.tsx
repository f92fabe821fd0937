import { fireEvent, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';

import { mockFetch } from '@/testing/mock-fetch';
import { renderApp } from '@/testing/render-app';
import { bodyOf, renderTool, toolPageRoutes } from '@/testing/tool-mocks';

const png = (name: string) => new File(['png'], name, { type: 'image/png' });

test('Shift+Enter adds a newline, Enter sends; results offer Download and Work from this', async () => {
  const calls = renderTool('/open-lab', { 'POST /api/open-lab/': { body: { result1: 'AAA', result2: 'data:image/png;base64,BBB' } } });
  const box = await screen.findByRole('textbox', { name: 'Message' });
  await userEvent.type(box, 'a red coat{Shift>}{Enter}{/Shift}on snow');
  expect(box).toHaveValue('a red coat\non snow');
  expect(calls.filter((call) => call.method === 'POST')).toHaveLength(0);
  await userEvent.type(box, '{Enter}');
  expect(box).toHaveValue('');
  expect(await screen.findByRole('img', { name: 'Result 2' })).toHaveAttribute('src', 'data:image/png;base64,BBB');
  expect(bodyOf(calls.find((call) => call.method === 'POST')!)).toEqual({ prompt: 'a red coat\non snow' });
  await userEvent.click(screen.getAllByRole('button', { name: 'Work from this' })[0]);
  expect(screen.getByRole('img', { name: 'Attachment 1' })).toHaveAttribute('src', 'data:image/png;base64,AAA');
});

test('at most 2 images: extras are dropped and + is disabled; they go as raw base64', async () => {
  const calls = renderTool('/open-lab', { 'POST /api/open-lab/': { status: 422, body: { error: 'unsupported', message: 'Open Lab cannot do that.' } } });
  const add = await screen.findByRole('button', { name: 'Add image' });
  fireEvent.change(screen.getByTestId('open-lab-files'), { target: { files: [png('a.png'), png('b.png'), png('c.png')] } });
  await waitFor(() => expect(screen.getAllByRole('img', { name: /Attachment/ })).toHaveLength(2));
  expect(add).toBeDisabled();
  await userEvent.click(screen.getByRole('button', { name: 'Send' }));
  expect(await screen.findByText('Open Lab cannot do that.')).toBeInTheDocument();
  const body = bodyOf(calls.find((call) => call.method === 'POST')!);
  expect(body.image).toBe(btoa('png'));
  expect(body.image_2).toBe(btoa('png'));
});

test('templates insert highlighted placeholders; a missing result reads the spec message', async () => {
  mockFetch(toolPageRoutes({ 'POST /api/open-lab/': { body: { result1: 'AAA' } } }));
  const { container } = renderApp('/open-lab');
  await userEvent.click(await screen.findByRole('button', { name: 'Templates' }));
  await userEvent.click(screen.getByRole('menuitem', { name: 'Sketch to Photo' }));
  expect(container.querySelector('mark.placeholder-required')).toHaveTextContent(/^\[REQUIRED: fabric/);
  expect(container.querySelector('mark.placeholder-optional')).toHaveTextContent(/^\[Optional:/);
  await userEvent.click(screen.getByRole('button', { name: 'Send' }));
  expect(await screen.findByText('Failed to generate images. Please try again.')).toBeInTheDocument();
});

test('Image to Flat asks for what Open Lab draws: a technical flat, front and back, of the named garment', async () => {
  mockFetch(toolPageRoutes({}));
  const { container } = renderApp('/open-lab');
  await userEvent.click(await screen.findByRole('button', { name: 'Templates' }));
  await userEvent.click(screen.getByRole('menuitem', { name: 'Image to Flat' }));
  expect(screen.getByRole('textbox', { name: 'Message' })).toHaveValue(
    'Turn the garment in the attached photo into a technical flat drawing, front and back.\nGarment: [REQUIRED: garment type, e.g. denim jacket]',
  );
  expect(container.querySelectorAll('mark.placeholder-required')).toHaveLength(1);
  expect(container.querySelector('mark.placeholder-optional')).toBeNull();
});

test('the conversation scrolls to its end again once a result picture has loaded (and so has its height)', async () => {
  // jsdom has no scrolling: watch the calls
  const scrollIntoView = jest.fn();
  Element.prototype.scrollIntoView = scrollIntoView;
  renderTool('/open-lab', { 'POST /api/open-lab/': { body: { result1: 'AAA', result2: 'BBB' } } });
  await userEvent.type(await screen.findByRole('textbox', { name: 'Message' }), 'recolour to navy{Enter}');
  const result = await screen.findByRole('img', { name: 'Result 2' });
  scrollIntoView.mockClear();
  fireEvent.load(result);
  expect(scrollIntoView).toHaveBeenCalledWith({ behavior: 'smooth', block: 'end' });
  delete (Element.prototype as Partial<Element>).scrollIntoView;
});
