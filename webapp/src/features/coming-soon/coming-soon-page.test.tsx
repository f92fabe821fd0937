import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';

import { mockFetch, signedIn } from '@/testing/mock-fetch';
import { renderApp } from '@/testing/render-app';

test('Re-Pattern shows its cards and the notify form sends nothing', async () => {
  const calls = mockFetch({ 'GET /api/me/': signedIn() });
  renderApp('/re-pattern');

  expect(await screen.findByText('Coming Soon')).toBeInTheDocument();
  expect(screen.getByText('Private Beta')).toBeInTheDocument();
  for (const card of ['Pattern Input', 'Fabric Simulation', 'Pre-Sampling Visualization']) {
    expect(screen.getByRole('heading', { name: card })).toBeInTheDocument();
  }
  const callsBefore = calls.length;

  await userEvent.type(screen.getByLabelText('E-mail address'), 'ana@maison.example');
  await userEvent.click(screen.getByRole('button', { name: 'Notify Me' }));

  expect(calls).toHaveLength(callsBefore);
  expect(screen.getByText('Coming Soon')).toBeInTheDocument();
});
