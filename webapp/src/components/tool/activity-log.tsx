import { EngineLabel } from '@/components/tool/engine-label';
import { DataTable, StatusBadge } from '@/components/ui/data-table';
import { ACTIVITY_LIMIT, useActivity } from '@/lib/activity';
import { formatTimestamp } from '@/lib/format';
import type { ActivityEntry } from '@/types/api';

/** Activity Log table: Timestamp, Action, Status, Details; only the last 5 entries. */
export function ActivityTable({ entries }: { entries: ActivityEntry[] }) {
  const shown = entries.slice(0, ACTIVITY_LIMIT);
  return (
    <DataTable
      className="activity-table"
      caption="Activity Log"
      columns={['Timestamp', 'Action', 'Status', 'Details']}
      rows={shown}
      rowKey={(entry) => entry.id}
      empty="No activity yet."
      cells={(entry) => (
        <>
          <td>{formatTimestamp(entry.timestamp)}</td>
          <td>{entry.action}</td>
          <td>
            <StatusBadge tone={entry.status.toLowerCase()}>{entry.status}</StatusBadge>
          </td>
          <td>
            {entry.details} <EngineLabel job={entry} />
          </td>
        </>
      )}
    />
  );
}

export function ActivityLog({ tool }: { tool: string }) {
  const activity = useActivity(tool);
  return (
    <section className="activity-log" aria-labelledby={`activity-${tool}`}>
      <h2 id={`activity-${tool}`}>Activity Log</h2>
      {activity.isError ? (
        <p role="alert" className="field-error">
          Could not load the activity log.
        </p>
      ) : (
        <ActivityTable entries={activity.data ?? []} />
      )}
    </section>
  );
}
