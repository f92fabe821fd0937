import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';

import { localConnector } from '@/features/drives/connector-mocks';
import { type MockResponse, mockFetch, signedIn } from '@/testing/mock-fetch';
import { renderApp } from '@/testing/render-app';
import type { Drive, DriveFile } from '@/types/api';

const DRIVES: Drive[] = [
  { tool: 'recolor', role: 'input', category: null, label: 'Input Drive', folder: 'in-1', kind: 'local', url: '/drives/in-1' },
  { tool: 'recolor', role: 'output', category: null, label: 'Output Drive', folder: 'out-1', kind: 'local', url: '/drives/out-1' },
];

const LOCAL_CONNECTOR = localConnector({ can_manage: false });

const file = (id: string, name: string): DriveFile => ({
  id,
  name,
  size: 2048,
  content_type: 'image/jpeg',
  modified_at: '2025-05-01T10:00:00Z',
  url: `/api/drives/in-1/files/${id}/download`,
});

function mockDrive({ upload = { status: 201, body: file('x', 'x.jpg') } as MockResponse, remove = { status: 204 } as MockResponse } = {}) {
  let listing: DriveFile[] = [file('a', 'look-a.jpg'), file('b', 'look-b.png')];
  const calls = mockFetch({
    'GET /api/me/': signedIn(),
    'GET /api/tools/': { body: [] },
    'GET /api/drives/': { body: DRIVES },
    'GET /api/drives/in-1/files': () => ({ body: listing }),
    'GET /api/drives/in-1/connector': { body: LOCAL_CONNECTOR },
    'POST /api/drives/in-1/files': () => upload,
    'DELETE /api/drives/in-1/files/a': () => {
      if ((remove.status ?? 200) < 300) listing = listing.filter((f) => f.id !== 'a');
      return remove;
    },
  });
  return calls;
}

test('lists the folder with download links', async () => {
  mockDrive();
  renderApp('/drives/in-1');

  expect(await screen.findByRole('heading', { level: 1, name: 'Input Drive' })).toBeInTheDocument();
  const table = await screen.findByRole('table', { name: 'Files in Input Drive' });
  expect(within(table).getByText('look-a.jpg')).toBeInTheDocument();
  expect(within(table).getAllByText('2.0 KB')).toHaveLength(2);
  const download = within(table).getByRole('link', { name: 'Download look-b.png' });
  expect(download).toHaveAttribute('href', '/api/drives/in-1/files/b/download');
  expect(download).toHaveAttribute('download', 'look-b.png');
});

test('the picker uploads each file in its own multipart request, then the list reloads', async () => {
  const calls = mockDrive();
  renderApp('/drives/in-1');
  await screen.findByText('look-a.jpg');
  const listingsBefore = calls.filter((c) => c.method === 'GET' && c.url === '/api/drives/in-1/files').length;

  const one = new File(['1'], 'one.jpg', { type: 'image/jpeg' });
  const two = new File(['22'], 'two.png', { type: 'image/png' });
  await userEvent.upload(screen.getByLabelText('Choose files'), [one, two]);

  await waitFor(() => expect(calls.filter((c) => c.method === 'POST')).toHaveLength(2));
  const posts = calls.filter((c) => c.method === 'POST');
  expect(posts.map((c) => ((c.init.body as FormData).get('file') as File).name)).toEqual(['one.jpg', 'two.png']);
  expect(posts[0].headers).not.toHaveProperty('Content-Type'); // the browser sets the multipart boundary
  await waitFor(() =>
    expect(calls.filter((c) => c.method === 'GET' && c.url === '/api/drives/in-1/files').length).toBeGreaterThan(listingsBefore),
  );
});

test('dropping files uploads them', async () => {
  const calls = mockDrive();
  renderApp('/drives/in-1');
  await screen.findByText('look-a.jpg');

  const dropped = new File(['x'], 'dropped.webp', { type: 'image/webp' });
  fireEvent.drop(screen.getByTestId('drop-zone'), { dataTransfer: { files: [dropped] } });

  await waitFor(() => expect(calls.filter((c) => c.method === 'POST')).toHaveLength(1));
  expect(((calls.find((c) => c.method === 'POST')?.init.body as FormData).get('file') as File).name).toBe('dropped.webp');
});

test('a refused upload shows the server message', async () => {
  mockDrive({ upload: { status: 413, body: { error: 'too_large', message: 'File is larger than 25 MB.' } } });
  renderApp('/drives/in-1');
  await screen.findByText('look-a.jpg');

  await userEvent.upload(screen.getByLabelText('Choose files'), new File(['1'], 'huge.jpg', { type: 'image/jpeg' }));

  expect(await screen.findByRole('alert')).toHaveTextContent('Upload of huge.jpg failed: File is larger than 25 MB.');
});

test('delete sends DELETE for that file and it leaves the list', async () => {
  const calls = mockDrive();
  renderApp('/drives/in-1');

  await userEvent.click(await screen.findByRole('button', { name: 'Delete look-a.jpg' }));

  await waitFor(() => expect(screen.queryByText('look-a.jpg')).not.toBeInTheDocument());
  expect(calls.filter((c) => c.method === 'DELETE').map((c) => c.url)).toEqual(['/api/drives/in-1/files/a']);
  expect(screen.getByText('look-b.png')).toBeInTheDocument();
});

test('a failed delete is reported and the file stays', async () => {
  mockDrive({ remove: { status: 403, body: { error: 'forbidden', message: 'Not your drive.' } } });
  renderApp('/drives/in-1');

  await userEvent.click(await screen.findByRole('button', { name: 'Delete look-a.jpg' }));

  expect(await screen.findByRole('alert')).toHaveTextContent('Delete failed: Not your drive.');
  expect(screen.getByText('look-a.jpg')).toBeInTheDocument();
});
