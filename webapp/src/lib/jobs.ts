import { keepPreviousData, queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';

import { apiClient } from '@/lib/api-client';
import type { Job, JobStatus } from '@/types/api';

export const jobKeys = {
  all: ['jobs'] as const,
  lists: () => [...jobKeys.all, 'list'] as const,
  list: (filters: JobFilters) => [...jobKeys.lists(), filters] as const,
  /** A tool page's log of its last jobs; under `lists()` so a run's invalidation reaches it. */
  recent: (tool: string) => [...jobKeys.lists(), 'recent', tool] as const,
  details: () => [...jobKeys.all, 'detail'] as const,
  detail: (id: string) => [...jobKeys.details(), id] as const,
};

/** The filters of GET /api/jobs/; dates are ISO dates (`created_before` includes its day). */
export type JobFilters = {
  tool?: string;
  status?: JobStatus;
  batch?: string;
  created_after?: string;
  created_before?: string;
  offset?: number;
};

export type JobPage = { count: number; next: string | null; previous: string | null; results: Job[] };

export const JOB_HISTORY_LIMIT = 50;
/** The API counts a job list up to this many (`JobPagination.MAX_COUNT`); past it `count` is a
 * lower bound, exact again on the last page. */
export const JOB_COUNT_BOUND = 1000;
export const JOB_HISTORY_POLL_MS = 5000;

export function jobListUrl(filters: JobFilters, limit = JOB_HISTORY_LIMIT): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(filters)) {
    if (value !== undefined && value !== '' && !(name === 'offset' && value === 0)) params.set(name, String(value));
  }
  params.set('limit', String(limit));
  return `/api/jobs/?${params.toString()}`;
}

export const getJobs = (filters: JobFilters, limit = JOB_HISTORY_LIMIT): Promise<JobPage> => apiClient.get<JobPage>(jobListUrl(filters, limit));

/** Whether one job of a list can still change. */
export const anyActive = (page: { results: Job[] }): boolean => page.results.some((job) => isJobActive(job.status));

/** Poll a job list every `ms` while one of its jobs can still change; stop once all have ended. */
const whileAnyActive =
  (ms: number) =>
  ({ state }: { state: { data?: JobPage } }): number | false =>
    state.data && anyActive(state.data) ? ms : false;

/** Poll every `ms` until the first answer, then while `active` holds for the latest one. */
export const pollWhile =
  <T>(ms: number, active: (data: T) => boolean) =>
  ({ state }: { state: { data?: T } }): number | false =>
    state.data === undefined || active(state.data) ? ms : false;

export const jobListQueryOptions = (filters: JobFilters) =>
  queryOptions({
    queryKey: jobKeys.list(filters),
    queryFn: () => getJobs(filters),
    // Refresh while a listed job can still change, so a failure shows without a reload.
    refetchInterval: whileAnyActive(JOB_HISTORY_POLL_MS),
  });

/** A tool page's log keeps the last 5 jobs, as the spec's activity log keeps 5 entries. */
export const RECENT_JOBS_LIMIT = 5;
export const RECENT_JOBS_POLL_MS = 3000;

/** GET /api/jobs/?tool=<slug>&limit=5: the organisation's last jobs of one tool, newest first. */
export const recentJobsQueryOptions = (tool: string) =>
  queryOptions({
    queryKey: jobKeys.recent(tool),
    queryFn: () => getJobs({ tool }, RECENT_JOBS_LIMIT),
    refetchInterval: whileAnyActive(RECENT_JOBS_POLL_MS),
  });

export function useRecentJobs(tool: string) {
  return useQuery(recentJobsQueryOptions(tool));
}

/** One page of the organisation's jobs, newest first; the last page stays shown while the next loads. */
export function useJobs(filters: JobFilters) {
  return useQuery({ ...jobListQueryOptions(filters), placeholderData: keepPreviousData });
}

export const retryBatchFailed = (batchId: string): Promise<{ retried: number }> =>
  apiClient.post<{ retried: number }>(`/api/batches/${encodeURIComponent(batchId)}/retry-failed/`);

/** Sends a batch's failed items back to the queue; every job query (lists, batches, details) refreshes. */
export function useRetryBatchFailed() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: retryBatchFailed,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: jobKeys.all }),
  });
}

/** GET /api/batches/{id}/report.csv: a download, so a plain link rather than a query. */
export const batchReportUrl = (batchId: string): string => `/api/batches/${encodeURIComponent(batchId)}/report.csv`;

export const getJob = (id: string): Promise<Job> =>
  apiClient.get<Job>(`/api/jobs/${encodeURIComponent(id)}/`);

export const JOB_POLL_MS = 1500;

const ACTIVE: ReadonlySet<JobStatus> = new Set(['queued', 'running']);

export const isJobActive = (status: JobStatus | undefined): boolean => status !== undefined && ACTIVE.has(status);

/**
 * The attempt a job is on when its worker was lost and it runs again: back in the queue after
 * attempt N it waits for attempt N + 1, a run taken over is attempt N; null for a first run (a
 * partner's retry of a failed job starts again at its first attempt).
 */
export function retryAttempt(job: Pick<Job, 'status' | 'attempts'>): number | null {
  if (job.status === 'queued' && job.attempts >= 1) return job.attempts + 1;
  if (job.status === 'running' && job.attempts > 1) return job.attempts;
  return null;
}

/** 'retrying (attempt 2)' for a job running again after a lost worker, else null. */
export function retryingText(job: Pick<Job, 'status' | 'attempts'>): string | null {
  const attempt = retryAttempt(job);
  return attempt === null ? null : `retrying (attempt ${attempt})`;
}

/** The status as the job lists say it: 'Queued · retrying (attempt 2)' after a lost worker. */
export function jobStatusLabel(job: Pick<Job, 'status' | 'attempts'>): string {
  const retrying = retryingText(job);
  return retrying ? `${JOB_STATUS_LABEL[job.status]} · ${retrying}` : JOB_STATUS_LABEL[job.status];
}

export const JOB_STATUS_LABEL: Record<JobStatus, string> = {
  queued: 'Queued',
  running: 'Running',
  succeeded: 'Succeeded',
  failed: 'Failed',
  canceled: 'Canceled',
};

/** The activity log's colours: green done, red failed or canceled, amber still working. */
export const JOB_STATUS_TONE: Record<JobStatus, 'processing' | 'success' | 'error'> = {
  queued: 'processing',
  running: 'processing',
  succeeded: 'success',
  failed: 'error',
  canceled: 'error',
};

export const jobQueryOptions = (id: string) =>
  queryOptions({
    queryKey: jobKeys.detail(id),
    queryFn: () => getJob(id),
    // Poll while the job can still change; a final status (succeeded, failed, canceled) ends it.
    refetchInterval: pollWhile<Job>(JOB_POLL_MS, (job) => isJobActive(job.status)),
    refetchIntervalInBackground: true,
  });

/** The job with its live progress, queue position and ETA; idle while `id` is null. */
export function useJob(id: string | null | undefined) {
  return useQuery({ ...jobQueryOptions(id ?? ''), enabled: Boolean(id) });
}
