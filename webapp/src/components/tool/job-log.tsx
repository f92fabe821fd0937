import { useEffect, useRef } from 'react';

import { EngineLabel } from '@/components/tool/engine-label';
import { OutputLinks } from '@/components/tool/output-links';
import { DataTable, ReasonText, StatusBadge } from '@/components/ui/data-table';
import { formatTimestamp } from '@/lib/format';
import { jobModelName, jobSourceName } from '@/lib/job-source';
import { JOB_STATUS_LABEL, JOB_STATUS_TONE, RECENT_JOBS_LIMIT, retryingText, useRecentJobs } from '@/lib/jobs';
import type { Job } from '@/types/api';

/** Queued / Running · 40 % / Succeeded / Failed / Canceled; a retried job says which attempt it is on. */
export function recentJobStatus(job: Job): string {
  const label = job.status === 'running' ? `${JOB_STATUS_LABEL.running} · ${Math.round(job.progress)} %` : JOB_STATUS_LABEL[job.status];
  const retrying = retryingText(job);
  return retrying ? `${label} · ${retrying}` : label;
}

function sourceOf(job: Job): string {
  const source = jobSourceName(job);
  const model = jobModelName(job);
  return [source, model].filter(Boolean).join(' · ') || '—';
}

/**
 * The tool page's recent jobs of the organisation, newest first (the last 5): each with its
 * status, the failure's reason, its source and links to its outputs. It polls while a job is
 * queued or running, and refreshes after a run (the run hooks invalidate the job lists; a page
 * that submits by itself passes `refreshKey`, e.g. the batch id it got back).
 *
 * Not the spec's Activity Log (Spinview, Flats): that one lists activity entries, this one jobs.
 */
export function JobLog({ tool, refreshKey }: { tool: string; refreshKey?: string | null }) {
  const jobs = useRecentJobs(tool);
  const { refetch } = jobs;
  const seen = useRef(refreshKey);
  useEffect(() => {
    if (refreshKey === seen.current) return;
    seen.current = refreshKey;
    if (refreshKey) void refetch();
  }, [refreshKey, refetch]);

  const headingId = `job-log-${tool}`;
  return (
    <section className="job-log" aria-labelledby={headingId}>
      <h2 id={headingId}>Recent jobs</h2>
      {jobs.isError ? (
        <p className="field-error">Could not load the recent jobs: {jobs.error.message}</p>
      ) : !jobs.data ? (
        <p className="muted small">Loading the recent jobs…</p>
      ) : (
        <div className="table-scroll">
          <RecentJobsTable jobs={jobs.data.results.slice(0, RECENT_JOBS_LIMIT)} />
        </div>
      )}
    </section>
  );
}

export function RecentJobsTable({ jobs }: { jobs: Job[] }) {
  return (
    <DataTable
      className="activity-table job-log-table"
      caption="Recent jobs"
      columns={['Created', 'Source', 'Status', 'Reason', 'Outputs']}
      rows={jobs}
      rowKey={(job) => job.id}
      empty="No jobs of this tool yet."
      cells={(job) => (
        <>
          <td>{formatTimestamp(job.created_at)}</td>
          <td className="job-log-source">{sourceOf(job)}</td>
          <td>
            <StatusBadge tone={JOB_STATUS_TONE[job.status]}>{recentJobStatus(job)}</StatusBadge>
          </td>
          <td className="job-log-reason">
            <ReasonText error={job.error} />
          </td>
          <td>
            <OutputLinks outputs={job.outputs} />
            <EngineLabel job={job} />
          </td>
        </>
      )}
    />
  );
}
