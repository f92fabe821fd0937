import { act, fireEvent, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';

import { fakeAudio } from '@/testing/audio';
import { catalogue } from '@/testing/catalogue';
import { mockFetch, signedIn } from '@/testing/mock-fetch';
import { renderApp } from '@/testing/render-app';

const oscillatorStarts = fakeAudio();

afterEach(() => window.localStorage.clear());

async function renderHome(tools = catalogue()) {
  mockFetch({ 'GET /api/me/': signedIn(), 'GET /api/tools/': { body: tools } });
  const app = renderApp('/');
  await screen.findByRole('heading', { name: 'Editorial Hub' });
  return app;
}

async function hoverCategory(title: RegExp | string) {
  const heading = screen.getByRole('heading', { name: title });
  await userEvent.hover(heading);
  return screen.findByRole('region', { name: new RegExp(`${typeof title === 'string' ? title : title.source} tools`) });
}

test('the five categories of the spec, with the private and live-soon notes', async () => {
  await renderHome();

  const names = screen.getAllByRole('heading', { level: 2 }).map((heading) => heading.textContent);
  expect(names).toEqual([
    'Editorial Hub',
    'Ecommerce Studio',
    'Design Lab',
    'Commercial SolutionsPrivate',
    'PlaygroundLive soon',
  ]);
  expect(screen.getByText('Hover a category to see its tools.')).toBeInTheDocument();
});

test('hovering a category shows its tools as tiles with badges; locked ones greyed, open ones linked', async () => {
  await renderHome();

  const panel = await hoverCategory('Editorial Hub');

  const editorial = within(panel).getByRole('link', { name: 'Editorial V1.0' });
  expect(editorial).toHaveAttribute('href', '/editorial');
  const locked = within(panel).getByRole('button', { name: 'Digital Twin Locked' });
  expect(locked).toHaveAttribute('aria-disabled', 'true');
  expect(locked).toHaveClass('is-locked');
  expect(within(panel).getAllByRole('link')).toHaveLength(4);
  expect(within(panel).getAllByRole('button')).toHaveLength(2);
});

test('focusing a category (keyboard) shows its tools too', async () => {
  await renderHome();

  act(() => screen.getByRole('button', { name: /Design Lab/ }).focus());

  const panel = await screen.findByRole('region', { name: 'Design Lab tools' });
  expect(within(panel).getByRole('link', { name: 'Tech Pack Lab Beta' })).toHaveAttribute('href', '/tech-pack');
  expect(within(panel).getByRole('button', { name: 'Pattern Locked' })).toBeInTheDocument();
  expect(screen.getByRole('button', { name: /Design Lab/ })).toHaveAttribute('aria-expanded', 'true');
});

test('the landing page links to /tech-pack, /model-swapper and /virtual-try-on', async () => {
  await renderHome();

  const commercial = await hoverCategory(/Commercial Solutions/);
  expect(within(commercial).getByRole('link', { name: 'Model Swap V1.0' })).toHaveAttribute('href', '/model-swapper');
  expect(within(commercial).getByRole('link', { name: 'Virtual Try-On V1.0' })).toHaveAttribute('href', '/virtual-try-on');
  expect(within(commercial).getByRole('button', { name: 'Live Restyle Private' })).toHaveAttribute('aria-disabled', 'true');
  const design = await hoverCategory('Design Lab');
  expect(within(design).getByRole('link', { name: /Tech Pack Lab/ })).toHaveAttribute('href', '/tech-pack');
});

test.each([
  ['Editorial Hub', 'Editorial Video Locked'],
  ['Editorial Hub', 'Digital Twin Locked'],
  ['Design Lab', 'Pattern Locked'],
  [/Commercial Solutions/, 'Virtual Try-On App Private'],
  [/Commercial Solutions/, 'Live Restyle Private'],
  [/Playground/, 'AI Agent Playground'],
])('clicking the locked tile in %s named %s plays the denial tone and does nothing else', async (category, tile) => {
  const { getRouter } = await renderHome();
  const panel = await hoverCategory(category);

  fireEvent.click(within(panel).getByRole('button', { name: tile }));

  expect(oscillatorStarts).toHaveBeenCalledTimes(1);
  expect(getRouter().location.pathname).toBe('/');
  expect(within(panel).getByRole('button', { name: tile })).toBeInTheDocument();
});

test('with sound off, a locked tile stays silent', async () => {
  window.localStorage.setItem('soundEnabled', 'false');
  await renderHome();
  const panel = await hoverCategory('Editorial Hub');

  fireEvent.click(within(panel).getByRole('button', { name: 'Digital Twin Locked' }));

  expect(oscillatorStarts).not.toHaveBeenCalled();
});

test('a tool staff enable for the organisation shows unlocked, without a new build', async () => {
  await renderHome(
    catalogue({
      'digital-twin': { locked: false, route: '/digital-twin', badge: 'Beta' },
      'editorial-product': { locked: true, badge: 'Locked' },
    }),
  );

  const panel = await hoverCategory('Editorial Hub');

  expect(within(panel).getByRole('link', { name: 'Digital Twin Beta' })).toHaveAttribute('href', '/digital-twin');
  const withdrawn = within(panel).getByRole('button', { name: 'Editorial Product Locked' });
  fireEvent.click(withdrawn);
  expect(oscillatorStarts).toHaveBeenCalledTimes(1);
});

test('hovering the release-notes box shows what each version stands for', async () => {
  await renderHome();
  const trigger = screen.getByRole('button', { name: 'Release Notes' });
  expect(screen.getByText('Foundation Model API')).not.toBeVisible();

  await userEvent.hover(trigger);

  expect(trigger).toHaveAttribute('aria-expanded', 'true');
  for (const [version, model] of [
    ['Beta', 'Foundation Model API'],
    ['V1', 'Hyperparameterized Multi-Model Ensemble'],
    ['V2', 'Context-Engineered Reasoning Pipeline'],
  ]) {
    const term = screen.getByText(version, { selector: 'dt' });
    expect(term.nextElementSibling).toHaveTextContent(model);
  }
  await userEvent.unhover(trigger);
  expect(screen.getByText('Foundation Model API')).not.toBeVisible();
});

test('a catalogue failure is reported', async () => {
  mockFetch({ 'GET /api/me/': signedIn(), 'GET /api/tools/': { status: 500, body: { error: 'server_error', message: 'Boom' } } });
  renderApp('/');

  expect(await screen.findByRole('alert')).toHaveTextContent('We could not load the tools.');
});
