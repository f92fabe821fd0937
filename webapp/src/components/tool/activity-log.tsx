import { ACTIVITY_LIMIT, useActivity } from '@/lib/activity';
import { formatTimestamp } from '@/lib/format';
import type { ActivityEntry } from '@/types/api';

/** Activity Log table: Timestamp, Action, Status, Details; only the last 5 entries. */
export function ActivityTable({ entries }: { entries: ActivityEntry[] }) {
  const shown = entries.slice(0, ACTIVITY_LIMIT);
  return (
    <table className="activity-table">
      <caption className="visually-hidden">Activity Log</caption>
      <thead>
        <tr>
          <th scope="col">Timestamp</th>
          <th scope="col">Action</th>
          <th scope="col">Status</th>
          <th scope="col">Details</th>
        </tr>
      </thead>
      <tbody>
        {shown.length === 0 ? (
          <tr>
            <td colSpan={4} className="muted">
              No activity yet.
            </td>
          </tr>
        ) : (
          shown.map((entry) => (
            <tr key={entry.id}>
              <td>{formatTimestamp(entry.timestamp)}</td>
              <td>{entry.action}</td>
              <td>
                <span className={`activity-status status-${entry.status.toLowerCase()}`}>{entry.status}</span>
              </td>
              <td>{entry.details}</td>
            </tr>
          ))
        )}
      </tbody>
    </table>
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
