import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';

import { mockFetch, signedIn } from '@/testing/mock-fetch';
import { renderApp } from '@/testing/render-app';

test('Re-Pattern shows its cards and the notify form sends nothing', async () => {
  const calls = mockFetch({ 'GET /api/me/': signedIn() });
  renderApp('/re-pattern');

  expect(await screen.findByText('Coming Soon')).toBeInTheDocument();
  expect(screen.getByText('Private Beta')).toBeInTheDocument();
  expect(document.title).toBe('Re-Pattern (coming soon) · Atelier');
  for (const card of ['Pattern Input', 'Fabric Simulation', 'Pre-Sampling Visualization']) {
    expect(screen.getByRole('heading', { name: card })).toBeInTheDocument();
  }
  const callsBefore = calls.length;

  await userEvent.type(screen.getByLabelText('E-mail address'), 'ana@maison.example');
  await userEvent.click(screen.getByRole('button', { name: 'Notify Me' }));

  expect(calls).toHaveLength(callsBefore);
  expect(screen.getByText('Coming Soon')).toBeInTheDocument();
});

test.each([
  ['/reface', 'Reface', ['Face Consistency', 'Expression Control', 'Diverse Casting']],
  ['/stylist-web', 'Stylist Web', ['Style Profiles', 'Outfit Curation', 'Shareable Looks']],
])('%s is a coming-soon page with three feature cards', async (route, name, cards) => {
  mockFetch({ 'GET /api/me/': signedIn() });
  renderApp(route);

  expect(await screen.findByRole('heading', { level: 1, name })).toBeInTheDocument();
  expect(screen.getByText('Coming Soon')).toBeInTheDocument();
  expect(screen.getByText('Private Beta')).toBeInTheDocument();
  expect(screen.getAllByRole('heading', { level: 2 }).map((h) => h.textContent)).toEqual(cards);
  expect(screen.getByRole('button', { name: 'Notify Me' })).toBeInTheDocument();
});
