import { queryOptions, useQuery } from '@tanstack/react-query';

import { apiClient } from '@/lib/api-client';
import type { Job, JobStatus } from '@/types/api';

export const jobKeys = {
  all: ['jobs'] as const,
  details: () => [...jobKeys.all, 'detail'] as const,
  detail: (id: string) => [...jobKeys.details(), id] as const,
};

export const getJob = (id: string): Promise<Job> =>
  apiClient.get<Job>(`/api/jobs/${encodeURIComponent(id)}/`);

export const JOB_POLL_MS = 1500;

const ACTIVE: ReadonlySet<JobStatus> = new Set(['queued', 'running']);

export const isJobActive = (status: JobStatus | undefined): boolean => status !== undefined && ACTIVE.has(status);

export const jobQueryOptions = (id: string) =>
  queryOptions({
    queryKey: jobKeys.detail(id),
    queryFn: () => getJob(id),
    // Poll while the job can still change; a final status (succeeded, failed, canceled) ends it.
    refetchInterval: (query) => {
      const status = query.state.data?.status;
      return status === undefined || isJobActive(status) ? JOB_POLL_MS : false;
    },
    refetchIntervalInBackground: true,
  });

/** The job with its live progress, queue position and ETA; idle while `id` is null. */
export function useJob(id: string | null | undefined) {
  return useQuery({ ...jobQueryOptions(id ?? ''), enabled: Boolean(id) });
}
