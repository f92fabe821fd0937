import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';

import { signedIn, mockFetch } from '@/testing/mock-fetch';
import { renderApp } from '@/testing/render-app';

test('unknown route shows the not-found page and logs the path', async () => {
  const consoleError = jest.spyOn(console, 'error').mockImplementation(() => undefined);
  mockFetch({ 'GET /api/me/': signedIn() });
  const { getRouter } = renderApp('/no-such-tool');

  expect(await screen.findByRole('heading', { name: '404' })).toBeInTheDocument();
  expect(screen.getByText('Oops! Page not found')).toBeInTheDocument();
  expect(document.title).toBe('Page not found · Atelier');
  expect(consoleError).toHaveBeenCalledWith(expect.stringContaining('non-existent route'), '/no-such-tool');

  await userEvent.click(screen.getByRole('link', { name: 'Return to Home' }));
  expect(await screen.findByRole('heading', { name: 'Editorial Hub' })).toBeInTheDocument();
  expect(getRouter().location.pathname).toBe('/');
});
