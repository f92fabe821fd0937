import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';

import { anonymous, mockFetch, signedIn } from '@/testing/mock-fetch';
import { renderApp } from '@/testing/render-app';
import * as browserLocation from '@/utils/browser-location';

test('ACCESS PLATFORM sends the browser to the server login with the requested path as next', async () => {
  const assign = jest.spyOn(browserLocation, 'assignLocation').mockImplementation(() => undefined);
  mockFetch({ 'GET /api/me/': anonymous });
  renderApp('/stylist-web');

  expect(await screen.findByText('Access is currently exclusive to partners.')).toBeInTheDocument();
  expect(screen.getByText('contact your administrator if you need assistance')).toBeInTheDocument();
  await userEvent.click(screen.getByRole('button', { name: 'ACCESS PLATFORM' }));

  expect(assign).toHaveBeenCalledWith('/api/auth/login/?next=%2Fstylist-web');
});

test.each([
  ['/login', '/api/auth/login/?next=%2F'],
  ['/login?next=%2Fre-pattern', '/api/auth/login/?next=%2Fre-pattern'],
  ['/login?next=%2F%2Fevil.example', '/api/auth/login/?next=%2F'],
])('direct visit to %s targets %s', async (route, expected) => {
  const assign = jest.spyOn(browserLocation, 'assignLocation').mockImplementation(() => undefined);
  mockFetch({ 'GET /api/me/': anonymous });
  renderApp(route);

  await userEvent.click(await screen.findByRole('button', { name: 'ACCESS PLATFORM' }));

  expect(assign).toHaveBeenCalledWith(expected);
});

test('a signed-in visitor to /login is sent on to the requested path', async () => {
  mockFetch({ 'GET /api/me/': signedIn() });
  const { getRouter } = renderApp('/login?next=%2Fre-pattern');

  expect(await screen.findByText('Coming Soon')).toBeInTheDocument();
  expect(getRouter().location.pathname).toBe('/re-pattern');
});
