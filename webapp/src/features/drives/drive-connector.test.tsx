import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';

import type { DriveConnector } from '@/features/drives/connector-api';
import { localConnector } from '@/features/drives/connector-mocks';
import { type MockResponse, mockFetch, signedIn } from '@/testing/mock-fetch';
import { renderApp } from '@/testing/render-app';
import type { Drive } from '@/types/api';

const DRIVES: Drive[] = [
  { tool: 'recolor', role: 'input', category: null, label: 'Input Drive', folder: 'in-1', kind: 'local', url: '/drives/in-1' },
];

const LOCAL = localConnector();

const S3: DriveConnector = {
  ...LOCAL,
  kind: 's3',
  where: 's3://maison-catalogue/looks/in/ at s3.maison.example',
  bucket: 'maison-catalogue',
  prefix: 'looks/in',
  endpoint_url: 'https://s3.maison.example',
  region: 'eu-west-3',
  credentials: 'access key AKIA••••WXYZ',
};

function mockConnector(connector: DriveConnector, routes: Record<string, MockResponse | (() => MockResponse)> = {}) {
  return mockFetch({
    'GET /api/me/': signedIn(),
    'GET /api/tools/': { body: [] },
    'GET /api/drives/': { body: DRIVES },
    'GET /api/drives/in-1/files': { body: [] },
    'GET /api/drives/in-1/connector': { body: connector },
    ...routes,
  });
}

test('an admin connects an S3 bucket: the form sends every field, the page shows the masked key', async () => {
  const calls = mockConnector(LOCAL, { 'PUT /api/drives/in-1/connector': { body: S3 } });
  renderApp('/drives/in-1');

  await userEvent.click(await screen.findByRole('button', { name: 'Connect a bucket or Drive folder' }));
  const form = screen.getByRole('form', { name: 'Connect this folder' });
  await userEvent.type(within(form).getByLabelText('Endpoint URL'), 'https://s3.maison.example');
  await userEvent.type(within(form).getByLabelText('Region'), 'eu-west-3');
  await userEvent.type(within(form).getByLabelText('Bucket'), 'maison-catalogue');
  await userEvent.type(within(form).getByLabelText('Prefix'), 'looks/in');
  await userEvent.type(within(form).getByLabelText('Access key ID'), 'AKIAEXAMPLEKEYWXYZ');
  await userEvent.type(within(form).getByLabelText('Secret access key'), 's3cr3t/key');
  await userEvent.click(within(form).getByRole('button', { name: 'Connect' }));

  expect(await screen.findByText('Credentials: access key AKIA••••WXYZ')).toBeInTheDocument();
  expect(screen.getByText(/Connected to s3:\/\/maison-catalogue\/looks\/in\//)).toBeInTheDocument();
  expect(screen.queryByRole('form', { name: 'Connect this folder' })).not.toBeInTheDocument();
  const put = calls.find((c) => c.method === 'PUT');
  expect(JSON.parse(String(put?.init.body))).toEqual({
    kind: 's3',
    endpoint_url: 'https://s3.maison.example',
    region: 'eu-west-3',
    bucket: 'maison-catalogue',
    prefix: 'looks/in',
    access_key_id: 'AKIAEXAMPLEKEYWXYZ',
    secret_access_key: 's3cr3t/key',
  });
  expect(screen.queryByText(/s3cr3t/)).not.toBeInTheDocument();
});

test('a Google Drive folder takes the service account key and the folder id', async () => {
  const calls = mockConnector(LOCAL, {
    'PUT /api/drives/in-1/connector': { body: { ...LOCAL, kind: 'google', where: 'Google Drive folder 1AbC', folder_id: '1AbC' } },
  });
  renderApp('/drives/in-1');

  await userEvent.click(await screen.findByRole('button', { name: 'Connect a bucket or Drive folder' }));
  await userEvent.selectOptions(screen.getByLabelText('Connect to'), 'google');
  await userEvent.click(screen.getByLabelText('Service account JSON key'));
  await userEvent.paste('{"type": "service_account"}');
  await userEvent.type(screen.getByLabelText('Folder ID'), '1AbC');
  await userEvent.click(screen.getByRole('button', { name: 'Connect' }));

  await waitFor(() => expect(calls.filter((c) => c.method === 'PUT')).toHaveLength(1));
  expect(JSON.parse(String(calls.find((c) => c.method === 'PUT')?.init.body))).toEqual({
    kind: 'google',
    folder_id: '1AbC',
    service_account: '{"type": "service_account"}',
  });
  expect(await screen.findByText('Connected to Google Drive folder 1AbC.')).toBeInTheDocument();
});

test("a refused connection shows the drive's reason and keeps the form", async () => {
  mockConnector(LOCAL, {
    'PUT /api/drives/in-1/connector': {
      status: 400,
      body: { error: 'invalid', message: 'connection: s3://maison/ at AWS: The AWS Access Key Id you provided does not exist in our records.' },
    },
  });
  renderApp('/drives/in-1');

  await userEvent.click(await screen.findByRole('button', { name: 'Connect a bucket or Drive folder' }));
  await userEvent.type(screen.getByLabelText('Bucket'), 'maison');
  await userEvent.type(screen.getByLabelText('Access key ID'), 'AKIAWRONG');
  await userEvent.type(screen.getByLabelText('Secret access key'), 'x');
  await userEvent.click(screen.getByRole('button', { name: 'Connect' }));

  expect(await screen.findByRole('alert')).toHaveTextContent('does not exist in our records');
  expect(screen.getByRole('form', { name: 'Connect this folder' })).toBeInTheDocument();
});

test('changing a connected folder keeps the stored keys unless new ones are typed', async () => {
  const calls = mockConnector(S3, { 'PUT /api/drives/in-1/connector': { body: { ...S3, prefix: 'looks/v2' } } });
  renderApp('/drives/in-1');

  await userEvent.click(await screen.findByRole('button', { name: 'Change connection' }));
  expect(screen.getByLabelText('Secret access key')).not.toBeRequired();
  const prefix = screen.getByLabelText('Prefix');
  await userEvent.clear(prefix);
  await userEvent.type(prefix, 'looks/v2');
  await userEvent.click(screen.getByRole('button', { name: 'Connect' }));

  await waitFor(() => expect(calls.filter((c) => c.method === 'PUT')).toHaveLength(1));
  const body = JSON.parse(String(calls.find((c) => c.method === 'PUT')?.init.body));
  expect(body).toEqual({ kind: 's3', endpoint_url: 'https://s3.maison.example', region: 'eu-west-3', bucket: 'maison-catalogue', prefix: 'looks/v2' });
});

test('test connection shows the answer, and a failure the reason', async () => {
  let answer: MockResponse = { body: { ok: true, message: 'Connected to s3://maison-catalogue/looks/in/: 3 file(s) listed.', files: 3 } };
  mockConnector(S3, { 'POST /api/drives/in-1/connector/test': () => answer });
  renderApp('/drives/in-1');

  await userEvent.click(await screen.findByRole('button', { name: 'Test connection' }));
  expect(await screen.findByRole('status')).toHaveTextContent('✓ Connected to s3://maison-catalogue/looks/in/: 3 file(s) listed.');

  answer = { status: 400, body: { error: 'invalid', message: 'connection: The specified bucket does not exist' } };
  await userEvent.click(screen.getByRole('button', { name: 'Test connection' }));
  await waitFor(() => expect(screen.getByRole('status')).toHaveTextContent('✗ connection: The specified bucket does not exist'));
});

test('back to the local folder sends DELETE', async () => {
  const calls = mockConnector(S3, { 'DELETE /api/drives/in-1/connector': { body: LOCAL } });
  renderApp('/drives/in-1');

  await userEvent.click(await screen.findByRole('button', { name: 'Back to the local folder' }));

  expect(await screen.findByText('Files are kept in the local folder.')).toBeInTheDocument();
  expect(calls.filter((c) => c.method === 'DELETE').map((c) => c.url)).toEqual(['/api/drives/in-1/connector']);
});

test('a partner who is not an admin sees where the folder is, and no control', async () => {
  mockConnector({ ...S3, can_manage: false });
  renderApp('/drives/in-1');

  expect(await screen.findByText('Credentials: access key AKIA••••WXYZ')).toBeInTheDocument();
  expect(screen.queryByRole('button', { name: 'Test connection' })).not.toBeInTheDocument();
  expect(screen.queryByRole('button', { name: 'Change connection' })).not.toBeInTheDocument();
});
