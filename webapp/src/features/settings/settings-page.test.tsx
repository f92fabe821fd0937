import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';

import type { ConnectionAnswer, ProviderAccount, ProviderCatalogue } from '@/features/settings/providers-api';
import { SettingsPage } from '@/features/settings/settings-page';
import { catalogue } from '@/testing/catalogue';
import { type MockResponse, mockFetch } from '@/testing/mock-fetch';
import { renderApp, renderComponent } from '@/testing/render-app';
import { toolPageRoutes } from '@/testing/tool-mocks';

const CATALOGUE = (canManage: boolean): ProviderCatalogue => ({
  can_manage: canManage,
  kinds: [
    { kind: 'fashn', label: 'FASHN', default_base_url: 'https://api.fashn.ai/v1', tools: ['virtual-try-on', 'model-swap'] },
    { kind: 'fal', label: 'fal', default_base_url: 'https://queue.fal.run', tools: ['virtual-try-on', 'restyle'] },
    { kind: 'vertex', label: 'Vertex AI', default_base_url: 'https://us-central1-aiplatform.googleapis.com/v1', tools: ['virtual-try-on'] },
  ],
});

const MONTH = new Date().toISOString().slice(0, 7);
const NO_USAGE = {
  month: MONTH,
  start: `${MONTH}-01T00:00:00Z`,
  end: `${MONTH}-28T00:00:00Z`,
  rows: [],
  tools: [],
  providers: [],
  total: { jobs: 0, succeeded: 0, failed: 0, seconds: 0 },
};

const account = (fields: Partial<ProviderAccount> = {}): ProviderAccount => ({
  id: 'a1',
  kind: 'fashn',
  label: 'Paris studio',
  key_last4: 'K3Y9',
  base_url: 'https://api.fashn.ai/v1',
  models: { 'virtual-try-on': 'tryon-v1.6' },
  fallback_local: true,
  tools: [],
  serves: ['virtual-try-on', 'model-swap'],
  created_at: '2026-11-01T10:00:00Z',
  updated_at: '2026-11-01T10:00:00Z',
  ...fields,
});

function mockSettings({
  canManage = true,
  accounts = [account()],
  create = undefined as MockResponse | undefined,
  testAnswer = { ok: true, message: 'Connected to api.fashn.ai (HTTP 200).' } as ConnectionAnswer,
} = {}) {
  let listing = accounts;
  const calls = mockFetch({
    'GET /api/tools/': { body: catalogue() },
    'GET /api/providers/catalogue/': { body: CATALOGUE(canManage) },
    'GET /api/providers/': () => ({ body: listing }),
    'POST /api/providers/': () => {
      if (create) return create;
      const made = account({ id: 'a2', kind: 'fal', label: 'Leffa', key_last4: 'WXYZ', serves: ['virtual-try-on'], tools: ['virtual-try-on'] });
      listing = [...listing, made];
      return { status: 201, body: made };
    },
    'PATCH /api/providers/a1/': () => {
      listing = [account({ label: 'Lyon studio' })];
      return { body: listing[0] };
    },
    'DELETE /api/providers/a1/': () => {
      listing = [];
      return { status: 204 };
    },
    'POST /api/providers/a1/test/': { body: testAnswer },
    [`GET /api/usage/?month=${MONTH}`]: { body: NO_USAGE },
    'GET /api/usage/?month=2026-10': {
      body: {
        ...NO_USAGE,
        month: '2026-10',
        rows: [
          { tool: 'virtual-try-on', provider: 'fashn', jobs: 3, succeeded: 2, failed: 1, seconds: 95 },
          { tool: 'recolor', provider: 'local', jobs: 1, succeeded: 1, failed: 0, seconds: 2.5 },
        ],
        total: { jobs: 4, succeeded: 3, failed: 1, seconds: 97.5 },
      },
    },
  });
  return calls;
}

const bodyOf = (calls: ReturnType<typeof mockFetch>, method: string, url: string) =>
  JSON.parse(String(calls.find((c) => c.method === method && c.url === url)?.init.body));

test('lists the accounts with the key masked to its last 4 characters', async () => {
  mockSettings();
  renderComponent(<SettingsPage />);

  const table = await screen.findByRole('table', { name: 'Provider accounts' });
  const row = within(table).getAllByRole('row')[1];
  expect(within(row).getByText('FASHN')).toBeInTheDocument();
  expect(within(row).getByText('Paris studio')).toBeInTheDocument();
  expect(within(row).getByText('•••• K3Y9')).toBeInTheDocument();
  expect(within(row).getByText('Every tool it runs')).toBeInTheDocument();
  expect(await within(row).findByText('Virtual Try-On')).toBeInTheDocument();
  expect(within(row).getByText('· tryon-v1.6')).toBeInTheDocument();
  expect(within(row).getByText('Model Swap')).toBeInTheDocument();
  expect(within(row).getByText('Local preview')).toBeInTheDocument();
  expect(document.title).toContain('Settings');
});

test('a partner who is not an admin sees the accounts read-only, with a note', async () => {
  mockSettings({ canManage: false });
  renderComponent(<SettingsPage />);

  expect(await screen.findByRole('note')).toHaveTextContent("Only your organisation's admins can add, change or delete provider accounts.");
  expect(await screen.findByText('•••• K3Y9')).toBeInTheDocument();
  expect(screen.queryByRole('button', { name: 'Add a provider account' })).not.toBeInTheDocument();
  expect(screen.queryByRole('button', { name: 'Test connection' })).not.toBeInTheDocument();
  expect(screen.queryByRole('button', { name: /Edit/ })).not.toBeInTheDocument();
});

test('an admin adds an account: the form posts it and the list reloads', async () => {
  const calls = mockSettings();
  renderComponent(<SettingsPage />);
  await screen.findByText('•••• K3Y9');

  await userEvent.click(screen.getByRole('button', { name: 'Add a provider account' }));
  const form = screen.getByRole('form', { name: 'Add a provider account' });
  await userEvent.selectOptions(within(form).getByLabelText('Provider'), 'fal');
  expect(within(form).getByLabelText('Base URL')).toHaveAttribute('placeholder', 'https://queue.fal.run');
  await userEvent.type(within(form).getByLabelText('Label'), 'Leffa');
  await userEvent.type(within(form).getByLabelText('API key'), 'fal-secret-WXYZ');
  await userEvent.click(within(form).getByRole('checkbox', { name: 'Virtual Try-On' }));
  await userEvent.type(within(form).getByLabelText('Model for Virtual Try-On'), 'fal-ai/leffa/virtual-tryon');
  await userEvent.click(within(form).getByRole('button', { name: 'Add account' }));

  expect(await screen.findByText('•••• WXYZ')).toBeInTheDocument();
  expect(bodyOf(calls, 'POST', '/api/providers/')).toEqual({
    kind: 'fal',
    label: 'Leffa',
    api_key: 'fal-secret-WXYZ',
    base_url: '',
    models: { 'virtual-try-on': 'fal-ai/leffa/virtual-tryon' },
    fallback_local: false,
    tools: ['virtual-try-on'],
  });
  expect(screen.queryByRole('form')).not.toBeInTheDocument();
  // the key typed in is nowhere on the page once saved
  expect(document.body.textContent).not.toContain('fal-secret-WXYZ');
});

test('Vertex AI takes its service account JSON key in a text area', async () => {
  mockSettings();
  renderComponent(<SettingsPage />);
  await userEvent.click(await screen.findByRole('button', { name: 'Add a provider account' }));
  await userEvent.selectOptions(screen.getByLabelText('Provider'), 'vertex');
  expect(screen.getByLabelText('Service account JSON key').tagName).toBe('TEXTAREA');
});

test('a refused account shows the reason and keeps the form', async () => {
  mockSettings({
    create: {
      status: 400,
      body: { error: 'invalid', message: 'base_url: The base URL points at a private, loopback or link-local address.', fields: {} },
    },
  });
  renderComponent(<SettingsPage />);
  await userEvent.click(await screen.findByRole('button', { name: 'Add a provider account' }));
  await userEvent.type(screen.getByLabelText('API key'), 'k');
  await userEvent.click(screen.getByRole('button', { name: 'Add account' }));

  expect(await screen.findByRole('alert')).toHaveTextContent('The base URL points at a private, loopback or link-local address.');
  expect(screen.getByRole('form', { name: 'Add a provider account' })).toBeInTheDocument();
});

test('editing without a new key does not send one', async () => {
  const calls = mockSettings();
  renderComponent(<SettingsPage />);
  await userEvent.click(await screen.findByRole('button', { name: 'Edit Paris studio' }));

  const form = screen.getByRole('form', { name: 'Change Paris studio' });
  expect(within(form).getByLabelText('Provider')).toBeDisabled();
  expect(within(form).getByText('Stored key •••• K3Y9. Leave empty to keep it.')).toBeInTheDocument();
  expect(within(form).getByLabelText('Model for Virtual Try-On')).toHaveValue('tryon-v1.6');
  const label = within(form).getByLabelText('Label');
  await userEvent.clear(label);
  await userEvent.type(label, 'Lyon studio');
  await userEvent.click(within(form).getByRole('button', { name: 'Save changes' }));

  expect(await screen.findByText('Lyon studio')).toBeInTheDocument();
  expect(bodyOf(calls, 'PATCH', '/api/providers/a1/')).toEqual({
    label: 'Lyon studio',
    base_url: 'https://api.fashn.ai/v1',
    models: { 'virtual-try-on': 'tryon-v1.6' },
    fallback_local: true,
    tools: [],
  });
});

test('Test connection shows the answer', async () => {
  mockSettings({ testAnswer: { ok: false, message: 'api.fashn.ai refused the key (HTTP 401).' } });
  renderComponent(<SettingsPage />);
  await userEvent.click(await screen.findByRole('button', { name: 'Test connection' }));

  expect(await screen.findByRole('status')).toHaveTextContent('✗ api.fashn.ai refused the key (HTTP 401).');
});

test('delete asks once more, then removes the account', async () => {
  const calls = mockSettings();
  renderComponent(<SettingsPage />);
  await userEvent.click(await screen.findByRole('button', { name: 'Delete Paris studio…' }));
  expect(calls.some((c) => c.method === 'DELETE')).toBe(false);
  await userEvent.click(screen.getByRole('button', { name: 'Delete Paris studio' }));

  expect(await screen.findByText('No provider account yet.')).toBeInTheDocument();
  expect(calls.filter((c) => c.method === 'DELETE')).toHaveLength(1);
});

test('the list is asked again after a save (no stale accounts)', async () => {
  const calls = mockSettings();
  renderComponent(<SettingsPage />);
  await screen.findByText('•••• K3Y9');
  const before = calls.filter((c) => c.method === 'GET' && c.url === '/api/providers/').length;
  await userEvent.click(screen.getByRole('button', { name: 'Add a provider account' }));
  await userEvent.type(screen.getByLabelText('API key'), 'k-1234');
  await userEvent.click(screen.getByRole('button', { name: 'Add account' }));
  await waitFor(() => expect(calls.filter((c) => c.method === 'GET' && c.url === '/api/providers/').length).toBe(before + 1));
});

test('the user menu leads to /settings', async () => {
  mockFetch(
    toolPageRoutes({
      'GET /api/providers/catalogue/': { body: CATALOGUE(true) },
      'GET /api/providers/': { body: [account()] },
      [`GET /api/usage/?month=${MONTH}`]: { body: NO_USAGE },
    }),
  );
  const { getRouter } = renderApp('/');

  await userEvent.click(await screen.findByRole('button', { name: 'ana@maison.example' }));
  await userEvent.click(screen.getByRole('menuitem', { name: 'Settings' }));

  expect(await screen.findByRole('heading', { level: 1, name: 'Settings' })).toBeInTheDocument();
  expect(getRouter().location.pathname).toBe('/settings');
  expect(await screen.findByText('•••• K3Y9')).toBeInTheDocument();
});

test('usage of a month, per tool and provider', async () => {
  mockSettings();
  renderComponent(<SettingsPage />);
  expect(await screen.findByText(`No jobs in ${MONTH}.`)).toBeInTheDocument();

  fireEvent.change(screen.getByLabelText('Month'), { target: { value: '2026-10' } });

  const table = await screen.findByRole('table', { name: 'Usage in 2026-10' });
  const rows = within(table).getAllByRole('row');
  expect(rows[1]).toHaveTextContent('Virtual Try-OnFASHN321');
  expect(rows[1]).toHaveTextContent('1.6 min');
  expect(rows[2]).toHaveTextContent('RecolorLocal1102.5 s');
  expect(rows[3]).toHaveTextContent('Total431');
});
