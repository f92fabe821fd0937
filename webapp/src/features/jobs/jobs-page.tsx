import { type FormEvent, type ReactNode, useId } from 'react';
import { Link, useSearchParams } from 'react-router-dom';

import { EngineLabel } from '@/components/tool/engine-label';
import { OutputLinks } from '@/components/tool/output-links';
import { BatchProgressView, RetryFailed } from '@/components/tool/batch-progress';
import { DataTable, ReasonText, StatusBadge } from '@/components/ui/data-table';
import { Options } from '@/components/ui/options';
import { Spinner } from '@/components/ui/spinner';
import { useDocumentTitle } from '@/hooks/use-document-title';
import { useBatchJobs } from '@/lib/batches';
import { formatTimestamp } from '@/lib/format';
import {
  JOB_COUNT_BOUND,
  JOB_HISTORY_LIMIT,
  JOB_STATUS_LABEL,
  JOB_STATUS_TONE,
  type JobFilters,
  type JobPage,
  batchReportUrl,
  jobStatusLabel,
  useJobs,
} from '@/lib/jobs';
import { useTools } from '@/lib/tools';
import type { Job, JobStatus } from '@/types/api';

const STATUSES = (Object.keys(JOB_STATUS_LABEL) as JobStatus[]).map((value) => ({ value, label: JOB_STATUS_LABEL[value] }));

/** The list's length as the page knows it: past JOB_COUNT_BOUND jobs the count only says "at
 * least", until the last page is reached. */
function pageCount(page: JobPage): string {
  const count = page.count.toLocaleString('en');
  return page.next && page.count >= JOB_COUNT_BOUND ? `${count}+` : count;
}

const FILTER_NAMES = ['tool', 'status', 'batch', 'created_after', 'created_before'] as const;

/** The filters live in the address, so a reload, a shared link or `/jobs?batch=…` shows the same jobs. */
function readFilters(params: URLSearchParams): JobFilters {
  const filters: JobFilters = {};
  for (const name of FILTER_NAMES) {
    const value = params.get(name)?.trim();
    if (value) (filters as Record<string, string>)[name] = value;
  }
  const offset = Number(params.get('offset'));
  if (Number.isInteger(offset) && offset > 0) filters.offset = offset;
  return filters;
}

const shortId = (id: string) => id.slice(0, 8);

export function JobsPage() {
  useDocumentTitle('Jobs');
  const [params, setParams] = useSearchParams();
  const filters = readFilters(params);
  const jobs = useJobs(filters);
  const tools = useTools();
  const toolName = new Map((tools.data ?? []).map((tool) => [tool.slug, tool.name]));

  const applyFilters = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const next = new URLSearchParams();
    for (const name of FILTER_NAMES) {
      const value = String(form.get(name) ?? '').trim();
      if (value) next.set(name, value);
    }
    setParams(next);
  };

  const goTo = (offset: number) => {
    const next = new URLSearchParams(params);
    if (offset > 0) next.set('offset', String(offset));
    else next.delete('offset');
    setParams(next);
  };

  const page = jobs.data;
  const offset = filters.offset ?? 0;

  return (
    <section className="jobs-page" aria-labelledby="jobs-title">
      <h1 id="jobs-title">Jobs</h1>
      <p className="muted">Every job of your organisation, newest first.</p>

      {/* keyed by the address: Back and links reset the fields to the filters in use */}
      <form key={params.toString()} className="jobs-filters" aria-label="Filter jobs" onSubmit={applyFilters}>
        <FilterField label="Tool">
          {(id) => (
            <select id={id} name="tool" defaultValue={filters.tool ?? ''}>
              <Options items={tools.data ?? []} value={(tool) => tool.slug} label={(tool) => tool.name} blank="All tools" />
            </select>
          )}
        </FilterField>
        <FilterField label="Status">
          {(id) => (
            <select id={id} name="status" defaultValue={filters.status ?? ''}>
              <option value="">Any status</option>
              {STATUSES.map(({ value, label }) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          )}
        </FilterField>
        <FilterField label="Batch">{(id) => <input id={id} name="batch" defaultValue={filters.batch ?? ''} placeholder="Batch id" />}</FilterField>
        <FilterField label="From">{(id) => <input id={id} name="created_after" type="date" defaultValue={filters.created_after ?? ''} />}</FilterField>
        <FilterField label="To">{(id) => <input id={id} name="created_before" type="date" defaultValue={filters.created_before ?? ''} />}</FilterField>
        <div className="jobs-filter-actions">
          <button type="submit" className="secondary-button">
            Filter
          </button>
          {FILTER_NAMES.some((name) => filters[name]) ? (
            <Link to="/jobs" className="secondary-button">
              Clear
            </Link>
          ) : null}
        </div>
      </form>

      {filters.batch ? <BatchPanel batchId={filters.batch} /> : null}

      {jobs.isError ? (
        <p role="alert" className="form-error">
          Could not load the jobs: {jobs.error.message}
        </p>
      ) : !page ? (
        <Spinner />
      ) : (
        <>
          <div className="table-scroll">
            <JobTable jobs={page.results} toolName={toolName} inBatch={Boolean(filters.batch)} />
          </div>
          {page.count > 0 ? (
            <nav className="jobs-pager" aria-label="Pages">
              <span className="muted small">
                {offset + 1}–{offset + page.results.length} of {pageCount(page)}
              </span>
              {page.count > JOB_HISTORY_LIMIT ? (
                <>
                  <button type="button" className="secondary-button" disabled={offset === 0} onClick={() => goTo(Math.max(0, offset - JOB_HISTORY_LIMIT))}>
                    Newer
                  </button>
                  <button type="button" className="secondary-button" disabled={!page.next} onClick={() => goTo(offset + JOB_HISTORY_LIMIT)}>
                    Older
                  </button>
                </>
              ) : null}
            </nav>
          ) : null}
        </>
      )}
    </section>
  );
}

function FilterField({ label, children }: { label: string; children: (id: string) => ReactNode }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children(id)}
    </div>
  );
}

/** One batch: the outcome of every item, each failure with its reason, retry and the CSV report. */
function BatchPanel({ batchId }: { batchId: string }) {
  const batch = useBatchJobs(batchId);
  if (batch.isError) return null; // the list below says why (a malformed id answers 400)
  if (!batch.data) return <Spinner />;
  // The items in the order they were sent (the list answers newest first).
  const items = [...batch.data.results].sort((a, b) => a.created_at.localeCompare(b.created_at));
  if (items.length === 0) {
    return (
      <p role="alert" className="form-error">
        No batch {batchId} in your organisation.
      </p>
    );
  }
  return (
    <div className="jobs-batch">
      <BatchProgressView jobs={items} title={`Batch ${shortId(batchId)}`} />
      <RetryFailed batchId={batchId} jobs={items} always>
        <a className="secondary-button" href={batchReportUrl(batchId)} download>
          Download report
        </a>
      </RetryFailed>
    </div>
  );
}

function JobTable({ jobs, toolName, inBatch }: { jobs: Job[]; toolName: Map<string, string>; inBatch: boolean }) {
  return (
    <DataTable
      className="activity-table jobs-table"
      caption={inBatch ? 'Jobs of this batch' : 'Jobs'}
      columns={['Created', 'Tool', 'Status', 'Reason', 'Finished', 'Outputs', 'Batch']}
      rows={jobs}
      rowKey={(job) => job.id}
      empty="No jobs match these filters."
      cells={(job) => (
        <>
          <td>{formatTimestamp(job.created_at)}</td>
          <td>{toolName.get(job.tool) ?? job.tool}</td>
          <td>
            <StatusBadge tone={JOB_STATUS_TONE[job.status]}>{jobStatusLabel(job)}</StatusBadge>
          </td>
          <td className="jobs-reason">
            <ReasonText error={job.error} />
          </td>
          <td>{job.finished_at ? formatTimestamp(job.finished_at) : <span className="muted">—</span>}</td>
          <td>
            <OutputLinks outputs={job.outputs} />
            <EngineLabel job={job} />
          </td>
          <td>
            {job.batch_id && !inBatch ? (
              <Link to={`/jobs?batch=${encodeURIComponent(job.batch_id)}`} aria-label={`Batch ${shortId(job.batch_id)}`}>
                {shortId(job.batch_id)}
              </Link>
            ) : job.batch_id ? (
              shortId(job.batch_id)
            ) : (
              <span className="muted">—</span>
            )}
          </td>
        </>
      )}
    />
  );
}
