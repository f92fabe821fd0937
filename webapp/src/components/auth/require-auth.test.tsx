import { screen, waitFor } from '@testing-library/react';

import { anonymous, mockFetch, signedIn } from '@/testing/mock-fetch';
import { renderApp } from '@/testing/render-app';

test('anonymous visitor to a guarded route is sent to /login with the origin, replacing history', async () => {
  mockFetch({ 'GET /api/me/': anonymous });

  const { getRouter } = renderApp('/re-pattern?tab=2');

  expect(await screen.findByRole('button', { name: 'ACCESS PLATFORM' })).toBeInTheDocument();
  const { location, navigationType } = getRouter();
  expect(location.pathname).toBe('/login');
  expect(new URLSearchParams(location.search).get('next')).toBe('/re-pattern?tab=2');
  expect(location.state).toMatchObject({ from: { pathname: '/re-pattern', search: '?tab=2' } });
  expect(navigationType).toBe('REPLACE');
  expect(screen.queryByText('Coming Soon')).not.toBeInTheDocument();
});

test('guarded route shows a centred spinner while the session loads, then the page', async () => {
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  mockFetch({ 'GET /api/me/': signedIn() });
  const settledFetch = globalThis.fetch;
  globalThis.fetch = (async (...args: Parameters<typeof fetch>) => {
    await gate;
    return settledFetch(...args);
  }) as typeof fetch;

  renderApp('/re-pattern');

  expect(await screen.findByRole('status', { name: 'Loading' })).toBeInTheDocument();
  release();
  expect(await screen.findByText('Coming Soon')).toBeInTheDocument();
  await waitFor(() => expect(screen.queryByRole('status', { name: 'Loading' })).not.toBeInTheDocument());
});

test('a server failure on /api/me/ is reported instead of redirecting', async () => {
  mockFetch({ 'GET /api/me/': { status: 500, body: { error: 'server_error', message: 'Boom' } } });

  const { getRouter } = renderApp('/');

  expect(await screen.findByRole('alert')).toHaveTextContent('could not check your session');
  expect(getRouter().location.pathname).toBe('/');
});

test('an anonymous visit to a tool page keeps the tool page as the origin', async () => {
  mockFetch({ 'GET /api/me/': anonymous });

  const { getRouter } = renderApp('/recoloring');

  await screen.findByRole('button', { name: 'ACCESS PLATFORM' });
  expect(getRouter().location.pathname).toBe('/login');
  expect(new URLSearchParams(getRouter().location.search).get('next')).toBe('/recoloring');
  expect(screen.queryByText("This tool's workspace opens in an upcoming release.")).not.toBeInTheDocument();
});
