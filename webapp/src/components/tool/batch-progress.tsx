import type { ReactNode } from 'react';

import { EngineLabel } from '@/components/tool/engine-label';
import { ProgressBar } from '@/components/ui/progress-bar';
import { type BatchSubmitted, summarizeBatch, useBatchJobs } from '@/lib/batches';
import { formatEta } from '@/lib/format';
import { jobModelName, jobSourceName } from '@/lib/job-source';
import { retryingText, useRetryBatchFailed } from '@/lib/jobs';
import type { Job } from '@/types/api';

/** A short name for a job of a batch: its image (or drive file) and, for library jobs, the model. */
export function describeJob(job: Job, index: number): string {
  const source = jobSourceName(job) ?? `Job ${index + 1}`;
  const model = jobModelName(job);
  return `${index + 1}. ${source}${model ? ` · ${model}` : ''}`;
}

export function jobStatusText(job: Job): string {
  const retrying = retryingText(job);
  const text = jobStateText(job);
  return retrying ? `${text} · ${retrying}` : text;
}

function jobStateText(job: Job): string {
  switch (job.status) {
    case 'queued': {
      const parts = ['Queued'];
      if (job.queue_position) parts.push(`position ${job.queue_position}`);
      if (typeof job.eta_seconds === 'number') parts.push(`ETA ${formatEta(job.eta_seconds)}`);
      return parts.join(' · ');
    }
    case 'running':
      return `Running · ${Math.round(job.progress)}%${typeof job.eta_seconds === 'number' ? ` · ETA ${formatEta(job.eta_seconds)}` : ''}`;
    case 'succeeded':
      return 'Done';
    case 'canceled':
      return `Canceled${job.error?.message ? `: ${job.error.message}` : ''}`;
    default:
      return `Failed: ${job.error?.message || 'no reason given'}`;
  }
}

/** The jobs of a batch as they progress: n of N done, each job's state, failures with reasons. */
export function BatchProgressView({ jobs, skipped = [], title = 'Batch progress' }: { jobs: Job[]; skipped?: BatchSubmitted['skipped']; title?: string }) {
  const summary = summarizeBatch(jobs);
  return (
    <section className="batch-progress" aria-label={title}>
      <h2 className="batch-title">{title}</h2>
      <p className="batch-summary" role="status">
        {summary.done} of {summary.total} done
        {summary.failed ? ` · ${summary.failed} failed` : ''}
        {summary.active && summary.etaSeconds !== null ? ` · ETA ${formatEta(summary.etaSeconds)}` : ''}
      </p>
      {summary.total ? <ProgressBar value={summary.progress} label={title} /> : null}
      <ul className="batch-jobs">
        {jobs.map((job, index) => (
          <li key={job.id} className={`batch-job job-${job.status}`}>
            <span className="batch-job-name">{describeJob(job, index)}</span>
            <span className="batch-job-status">{jobStatusText(job)}</span>
            <EngineLabel job={job} />
          </li>
        ))}
      </ul>
      {skipped.length ? (
        <>
          <h3 className="batch-subtitle">Skipped</h3>
          <ul className="batch-jobs">
            {skipped.map((item) => (
              <li key={item.name} className="batch-job job-skipped">
                <span className="batch-job-name">{item.name}</span>
                <span className="batch-job-status">{item.reason}</span>
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}

/**
 * Sends a batch's failed items back to the queue (the batch's views refresh), and says how many
 * went; `children` are the batch's other actions. Nothing while nothing failed, unless `always`.
 */
export function RetryFailed({ batchId, jobs, always = false, children }: { batchId: string; jobs: Job[]; always?: boolean; children?: ReactNode }) {
  const retry = useRetryBatchFailed();
  const failed = jobs.filter((job) => job.status === 'failed').length;
  if (failed === 0 && !retry.isSuccess && !always) return null;
  return (
    <div className="jobs-batch-actions">
      <button type="button" className="secondary-button" disabled={failed === 0 || retry.isPending} onClick={() => retry.mutate(batchId)}>
        {failed ? `Retry ${failed} failed ${failed === 1 ? 'item' : 'items'}` : 'Retry failed items'}
      </button>
      {retry.isSuccess ? (
        <span role="status" className="muted small">
          {retry.data.retried === 1 ? '1 item is back in the queue.' : `${retry.data.retried} items are back in the queue.`}
        </span>
      ) : null}
      {retry.isError ? (
        <span role="alert" className="field-error small">
          Retry failed: {retry.error.message}
        </span>
      ) : null}
      {children}
    </div>
  );
}

/** Live view of a submitted batch (polls GET /api/jobs/?batch=…), with a retry of its failed items. */
export function BatchProgress({ batch, title }: { batch: BatchSubmitted; title?: string }) {
  const query = useBatchJobs(batch.batch_id, batch.jobs);
  const jobs = orderLike(query.data?.results ?? batch.jobs, batch.jobs);
  return (
    <>
      <BatchProgressView jobs={jobs} skipped={batch.skipped} title={title} />
      <RetryFailed batchId={batch.batch_id} jobs={jobs} />
    </>
  );
}

// Keep the order of the submit answer (card order); jobs it did not list go last.
function orderLike(jobs: Job[], reference: Job[]): Job[] {
  const rank = new Map(reference.map((job, index) => [job.id, index]));
  return [...jobs].sort((a, b) => (rank.get(a.id) ?? Infinity) - (rank.get(b.id) ?? Infinity));
}

/** A drive sync's batch: its progress, or the note that the drive had nothing new for it. */
export function SyncBatch({ batch, title, empty }: { batch: BatchSubmitted | null; title: string; empty: string }) {
  if (!batch) return null;
  if (batch.count === 0 && !batch.skipped?.length) return <p className="notice">{empty}</p>;
  return <BatchProgress key={batch.batch_id} batch={batch} title={title} />;
}
