import { useId, useState } from 'react';

import { Spinner } from '@/components/ui/spinner';
import { useUsage } from '@/features/settings/providers-api';

const thisMonth = () => new Date().toISOString().slice(0, 7);

const duration = (seconds: number) => {
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const minutes = seconds / 60;
  return minutes < 60 ? `${minutes.toFixed(1)} min` : `${(minutes / 60).toFixed(1)} h`;
};

const providerName = (provider: string, kinds: Map<string, string>) => (provider === 'local' ? 'Local' : (kinds.get(provider) ?? provider));

type Props = { toolName: (slug: string) => string; kindLabels: Map<string, string> };

/** What the organisation ran in a month, per tool and provider: what a brand checks before its bill. */
export function UsageSection({ toolName, kindLabels }: Props) {
  const id = useId();
  const [month, setMonth] = useState(thisMonth);
  const usage = useUsage(month);

  return (
    <section aria-labelledby={`${id}-title`} className="usage-section">
      <h2 id={`${id}-title`}>Usage</h2>
      <div className="field">
        <label htmlFor={`${id}-month`}>Month</label>
        <input id={`${id}-month`} type="month" value={month} onChange={(event) => event.target.value && setMonth(event.target.value)} />
      </div>
      {usage.isPending ? (
        <Spinner />
      ) : usage.isError ? (
        <p role="alert" className="field-error">
          Could not read the usage: {usage.error.message}
        </p>
      ) : usage.data.rows.length === 0 ? (
        <p className="muted">No jobs in {usage.data.month}.</p>
      ) : (
        <table className="file-table">
          <caption className="visually-hidden">Usage in {usage.data.month}</caption>
          <thead>
            <tr>
              <th scope="col">Tool</th>
              <th scope="col">Provider</th>
              <th scope="col">Jobs</th>
              <th scope="col">Succeeded</th>
              <th scope="col">Failed</th>
              <th scope="col">Run time</th>
            </tr>
          </thead>
          <tbody>
            {usage.data.rows.map((row) => (
              <tr key={`${row.tool}:${row.provider}`}>
                <td>{toolName(row.tool)}</td>
                <td>{providerName(row.provider, kindLabels)}</td>
                <td>{row.jobs}</td>
                <td>{row.succeeded}</td>
                <td>{row.failed}</td>
                <td>{duration(row.seconds)}</td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row" colSpan={2}>
                Total
              </th>
              <td>{usage.data.total.jobs}</td>
              <td>{usage.data.total.succeeded}</td>
              <td>{usage.data.total.failed}</td>
              <td>{duration(usage.data.total.seconds)}</td>
            </tr>
          </tfoot>
        </table>
      )}
    </section>
  );
}
