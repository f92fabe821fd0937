import type { ReactNode } from 'react';

type DataTableProps<T> = {
  className: string;
  /** Read to screen readers only. */
  caption: string;
  columns: string[];
  rows: T[];
  rowKey: (row: T) => string | number;
  /** The one row shown when there are none. */
  empty: string;
  /** The row's cells, one per column. */
  cells: (row: T) => ReactNode;
};

/** The pages' tables (activity log, recent jobs, job history): a header row, the rows or an empty note. */
export function DataTable<T>({ className, caption, columns, rows, rowKey, empty, cells }: DataTableProps<T>) {
  return (
    <table className={className}>
      <caption className="visually-hidden">{caption}</caption>
      <thead>
        <tr>
          {columns.map((column) => (
            <th key={column} scope="col">
              {column}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.length === 0 ? (
          <tr>
            <td colSpan={columns.length} className="muted">
              {empty}
            </td>
          </tr>
        ) : (
          rows.map((row) => <tr key={rowKey(row)}>{cells(row)}</tr>)
        )}
      </tbody>
    </table>
  );
}

/** A status in the tables' colours: processing (amber), success (green), error (red). */
export function StatusBadge({ tone, children }: { tone: string; children: ReactNode }) {
  return <span className={`activity-status status-${tone}`}>{children}</span>;
}

/** A failure's reason (its code on hover), or a dash. */
export function ReasonText({ error }: { error: { code: string; message: string } | null }) {
  return error?.message ? <span title={error.code}>{error.message}</span> : <span className="muted">—</span>;
}
