import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';

import { fakeAudio } from '@/testing/audio';
import { catalogue } from '@/testing/catalogue';
import { anonymous, mockFetch, signedIn } from '@/testing/mock-fetch';
import { renderApp } from '@/testing/render-app';
import * as browserLocation from '@/utils/browser-location';

afterEach(() => {
  window.localStorage.clear();
  document.cookie = 'csrftoken=; expires=Thu, 01 Jan 1970 00:00:00 GMT';
});

test('signed-in user sees their email and signs out through POST /api/auth/logout/', async () => {
  document.cookie = 'csrftoken=tok123';
  const calls = mockFetch({
    'GET /api/me/': signedIn('ana@maison.example'),
    'POST /api/auth/logout/': { status: 200, body: { redirect: '/login' } },
  });
  const { getRouter } = renderApp('/');

  const userButton = await screen.findByRole('button', { name: 'ana@maison.example' });
  await userEvent.click(userButton);
  await userEvent.click(screen.getByRole('menuitem', { name: 'Sign Out' }));

  expect(await screen.findByRole('button', { name: 'ACCESS PLATFORM' })).toBeInTheDocument();
  expect(getRouter().location.pathname).toBe('/login');
  const logout = calls.find((call) => call.url === '/api/auth/logout/');
  expect(logout).toMatchObject({ method: 'POST', headers: { 'X-CSRFToken': 'tok123' } });
  expect(screen.queryByText('ana@maison.example')).not.toBeInTheDocument();
});

test('signing out of a provider session leaves for the provider\'s logout page', async () => {
  const providerLogout = 'https://id.example/logout?post_logout_redirect_uri=http%3A%2F%2Fapp%2F';
  mockFetch({
    'GET /api/me/': signedIn('ana@maison.example'),
    'POST /api/auth/logout/': { status: 200, body: { redirect: providerLogout } },
  });
  const assign = jest.spyOn(browserLocation, 'assignLocation').mockImplementation(() => undefined);
  renderApp('/');

  await userEvent.click(await screen.findByRole('button', { name: 'ana@maison.example' }));
  await userEvent.click(screen.getByRole('menuitem', { name: 'Sign Out' }));

  await waitFor(() => expect(assign).toHaveBeenCalledWith(providerLogout));
  assign.mockRestore();
});

test('anonymous visitors get no user menu', async () => {
  mockFetch({ 'GET /api/me/': anonymous });
  renderApp('/login');

  await screen.findByRole('button', { name: 'ACCESS PLATFORM' });
  expect(screen.queryByRole('button', { name: /@/ })).not.toBeInTheDocument();
  expect(screen.queryByText('Sign Out')).not.toBeInTheDocument();
  expect(screen.getByRole('link', { name: 'Atelier' })).toHaveAttribute('href', '/');
  expect(screen.getByRole('marquee')).toHaveTextContent('Beta 1.0 — version live');
});

test('sound toggle defaults to on and persists to localStorage', async () => {
  mockFetch({ 'GET /api/me/': anonymous });
  const first = renderApp('/login');

  const toggle = await screen.findByRole('button', { name: 'Sound on' });
  expect(toggle).toHaveAttribute('aria-pressed', 'true');
  await userEvent.click(toggle);
  expect(window.localStorage.getItem('soundEnabled')).toBe('false');
  expect(screen.getByRole('button', { name: 'Sound off' })).toHaveAttribute('aria-pressed', 'false');
  first.unmount();

  renderApp('/login');
  expect(await screen.findByRole('button', { name: 'Sound off' })).toBeInTheDocument();
});

describe('TOOLS dropdown', () => {
  const oscillatorStarts = fakeAudio();

  async function openToolsMenu(tools = catalogue()) {
    mockFetch({ 'GET /api/me/': signedIn(), 'GET /api/tools/': { body: tools } });
    const app = renderApp('/');
    await screen.findByRole('heading', { name: 'Editorial Hub' });
    await waitFor(() => expect(app.queryClient.getQueryData(['tools', 'list'])).toBeDefined());
    await userEvent.click(screen.getByRole('button', { name: /TOOLS/ }));
    return app;
  }

  test('clicking a locked entry plays the denial tone and stays put', async () => {
    const { getRouter } = await openToolsMenu();
    const editorial = screen.getByRole('group', { name: 'EDITORIAL' });

    fireEvent.click(within(editorial).getByRole('menuitem', { name: /Digital Twin/ }));

    expect(oscillatorStarts).toHaveBeenCalledTimes(1);
    expect(getRouter().location.pathname).toBe('/');
    expect(within(editorial).getByRole('menuitem', { name: /Digital Twin/ })).toHaveAttribute('aria-disabled', 'true');
    expect(within(editorial).getByRole('menuitem', { name: 'Editorial V1.0' })).toHaveAttribute('href', '/editorial');
  });

  test('no tone when sound is disabled', async () => {
    window.localStorage.setItem('soundEnabled', 'false');
    await openToolsMenu();

    fireEvent.click(screen.getByRole('menuitem', { name: /AI Agent/ }));

    expect(oscillatorStarts).not.toHaveBeenCalled();
  });

  test('lock state comes from the catalogue: an enabled tool opens, a withdrawn one is denied', async () => {
    const { getRouter } = await openToolsMenu(
      catalogue({
        pattern: { locked: false, route: '/pattern-preview', badge: 'Beta' },
        recolor: { locked: true },
      }),
    );
    const design = screen.getByRole('group', { name: 'DESIGN' });

    expect(within(design).getByRole('menuitem', { name: 'Pattern Beta' })).toHaveAttribute('href', '/pattern-preview');
    const recolor = within(design).getByRole('menuitem', { name: /Recolor/ });
    expect(recolor).not.toHaveAttribute('href');
    fireEvent.click(recolor);
    expect(oscillatorStarts).toHaveBeenCalledTimes(1);
    expect(getRouter().location.pathname).toBe('/');
  });

  test('the private and playground entries carry their badges and stay disabled', async () => {
    await openToolsMenu();
    const others = screen.getByRole('group', { name: 'Unavailable' });

    expect(within(others).getByRole('menuitem', { name: 'Virtual Try-On App Private' })).toHaveAttribute('aria-disabled', 'true');
    expect(within(others).getByRole('menuitem', { name: 'Live Restyle Private' })).toHaveAttribute('aria-disabled', 'true');
    expect(within(others).getByRole('menuitem', { name: 'AI Agent Playground' })).toHaveAttribute('aria-disabled', 'true');
    // the navigation bar does not link to the landing-page-only tools
    expect(screen.queryByRole('menuitem', { name: /Tech Pack|Model Swap|^Virtual Try-On V/ })).not.toBeInTheDocument();
  });

  test('an open entry navigates to its tool page and closes the menu', async () => {
    mockFetch({
      'GET /api/me/': signedIn(),
      'GET /api/tools/': { body: catalogue() },
      'GET /api/queues/': { body: [] },
    });
    const { getRouter } = renderApp('/');
    await screen.findByRole('heading', { name: 'Editorial Hub' });
    await userEvent.click(screen.getByRole('button', { name: /TOOLS/ }));

    await userEvent.click(await screen.findByRole('menuitem', { name: 'Spinview V1.0' }));

    expect(await screen.findByRole('heading', { level: 1, name: /Spinview/ })).toBeInTheDocument();
    expect(getRouter().location.pathname).toBe('/catalog-video');
    expect(screen.queryByRole('menu', { name: 'Tools' })).not.toBeInTheDocument();
  });

  test('keyboard: ArrowDown opens with focus on the first item, arrows move, Escape returns to the trigger', async () => {
    mockFetch({ 'GET /api/me/': signedIn(), 'GET /api/tools/': { body: catalogue() } });
    renderApp('/');
    await screen.findByRole('heading', { name: 'Editorial Hub' });
    const trigger = screen.getByRole('button', { name: /TOOLS/ });
    trigger.focus();

    await userEvent.keyboard('{ArrowDown}');
    expect(await screen.findByRole('menu', { name: 'Tools' })).toBeInTheDocument();
    expect(trigger).toHaveAttribute('aria-expanded', 'true');
    await waitFor(() => expect(document.activeElement).toHaveTextContent(/^Editorial/));
    await userEvent.keyboard('{ArrowDown}');
    expect(document.activeElement).toHaveTextContent(/^Tonelab/);
    await userEvent.keyboard('{End}');
    expect(document.activeElement).toHaveTextContent(/^AI Agent/);

    await userEvent.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('menu', { name: 'Tools' })).not.toBeInTheDocument());
    expect(trigger).toHaveFocus();
  });
});
