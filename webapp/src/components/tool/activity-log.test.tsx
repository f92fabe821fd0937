import { screen, within } from '@testing-library/react';

import { ActivityLog } from '@/components/tool/activity-log';
import { SystemLog } from '@/components/tool/system-log';
import { mockFetch } from '@/testing/mock-fetch';
import { renderComponent } from '@/testing/render-app';
import type { ActivityEntry } from '@/types/api';

const entry = (id: number, status: ActivityEntry['status'], details: string): ActivityEntry => ({
  id,
  timestamp: `2025-05-0${id}T10:00:00Z`,
  tool: 'spinview',
  action: 'Sync',
  status,
  details,
  job_id: null,
  engine: '',
  tier: '',
});

test('Activity Log: Timestamp, Action, Status, Details, and only the last 5 entries', async () => {
  const rows = [1, 2, 3, 4, 5, 6].map((id) => entry(id, id === 1 ? 'Processing' : 'Success', `details ${id}`));
  const calls = mockFetch({ 'GET /api/activity/?tool=spinview&limit=5': { body: rows } });

  renderComponent(<ActivityLog tool="spinview" />);

  const table = await screen.findByRole('table', { name: 'Activity Log' });
  expect(within(table).getAllByRole('columnheader').map((th) => th.textContent)).toEqual(['Timestamp', 'Action', 'Status', 'Details']);
  await within(table).findByText('details 1');
  const bodyRows = within(table).getAllByRole('row').slice(1);
  expect(bodyRows).toHaveLength(5);
  expect(within(table).queryByText('details 6')).not.toBeInTheDocument();
  expect(within(bodyRows[0]).getByText('Processing')).toHaveClass('status-processing');
  expect(calls[0].url).toBe('/api/activity/?tool=spinview&limit=5');
});

test('an empty log says so', async () => {
  mockFetch({ 'GET /api/activity/?tool=flats&limit=5': { body: [] } });
  renderComponent(<ActivityLog tool="flats" />);

  expect(await screen.findByText('No activity yet.')).toBeInTheDocument();
});

test('log lines carry the SYSTEM LOG / SYSTEM ALERT / SYSTEM ERROR prefixes', () => {
  renderComponent(
    <SystemLog
      lines={[
        { level: 'log', text: 'Waiting for input URLs…' },
        { level: 'alert', text: 'Provide both Desired Garment URL and Base Image URL.' },
        { level: 'error', text: 'Generation failed.' },
      ]}
    />,
  );

  const log = screen.getByRole('log', { name: 'System log' });
  expect(within(log).getAllByText(/^SYSTEM/).map((line) => line.textContent)).toEqual([
    'SYSTEM LOG: Waiting for input URLs…',
    'SYSTEM ALERT: Provide both Desired Garment URL and Base Image URL.',
    'SYSTEM ERROR: Generation failed.',
  ]);
});

test('an entry of a job a provider made says so', async () => {
  const rows = [{ ...entry(1, 'Success', 'Finished with 1 output(s).'), engine: 'fashn:product-to-model', tier: 'studio' as const }];
  mockFetch({ 'GET /api/activity/?tool=spinview&limit=5': { body: rows } });
  renderComponent(<ActivityLog tool="spinview" />);
  expect(await screen.findByText('FASHN · studio')).toBeInTheDocument();
});
