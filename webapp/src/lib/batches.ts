import { queryOptions, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';

import { apiClient } from '@/lib/api-client';
import { anyActive, isJobActive, jobKeys, pollWhile } from '@/lib/jobs';
import { queueKeys } from '@/lib/queues';
import { useSubmit } from '@/lib/submit';
import type { Job } from '@/types/api';

/** 202 answer of the card tools and drive syncs: one job per card (or per drive file). */
export type BatchSubmitted = {
  batch_id: string;
  count: number;
  jobs: Job[];
  /** Drive syncs only: files not taken, with the reason. */
  skipped?: { name: string; reason: string }[];
};

export type UrlItem = { img_url: string };

type Paginated<T> = { count: number; results: T[] };

export const BATCH_LIMIT = 100;
export const BATCH_POLL_MS = 2000;

export const batchKeys = {
  all: ['jobs', 'batch'] as const,
  detail: (batchId: string) => [...batchKeys.all, batchId] as const,
};

export const getBatchJobs = (batchId: string): Promise<Paginated<Job>> =>
  apiClient.get<Paginated<Job>>(`/api/jobs/?batch=${encodeURIComponent(batchId)}&limit=${BATCH_LIMIT}`);

export const batchQueryOptions = (batchId: string) =>
  queryOptions({
    queryKey: batchKeys.detail(batchId),
    queryFn: () => getBatchJobs(batchId),
    // Poll until every job of the batch has a final status.
    refetchInterval: pollWhile(BATCH_POLL_MS, anyActive),
    refetchIntervalInBackground: true,
  });

/**
 * The batch's jobs, live; `initial` (the submit answer) shows until the first poll answers. When
 * its last job ends, the status bar's queue figures and the job lists refresh at once rather than
 * at their next poll, so no part of the page still says Processing over a finished batch.
 */
export function useBatchJobs(batchId: string | null | undefined, initial?: Job[]) {
  const queryClient = useQueryClient();
  const query = useQuery({
    ...batchQueryOptions(batchId ?? ''),
    enabled: Boolean(batchId),
    placeholderData: initial ? { count: initial.length, results: initial } : undefined,
  });
  const jobs = query.isPlaceholderData ? undefined : query.data?.results;
  const ended = jobs !== undefined && jobs.every((job) => !isJobActive(job.status));
  useEffect(() => {
    if (!ended) return;
    for (const queryKey of [queueKeys.all, jobKeys.lists()]) void queryClient.invalidateQueries({ queryKey });
  }, [ended, queryClient]);
  return query;
}

/** POST an array of cards to a card tool. */
export const submitCards = <T>(url: string, cards: T[]): Promise<BatchSubmitted> =>
  apiClient.post<BatchSubmitted>(url, cards, { headers: { 'Idempotency-Key': idempotencyKey() } });

/** GET /api/<tool>/urls: the images of the tool's input drive folder. */
export const getInputUrls = (url: string): Promise<UrlItem[]> => apiClient.get<UrlItem[]>(url);

/** POST a drive sync (Spinview, Flats, Remodel). */
export const startSync = (url: string, body: Record<string, unknown>): Promise<BatchSubmitted> =>
  apiClient.post<BatchSubmitted>(url, body, { headers: { 'Idempotency-Key': idempotencyKey() } });

/** A drive sync as a mutation: the job lists, activity and queues refresh when it settles. */
export function useStartSync(url: string) {
  return useSubmit((body: Record<string, unknown>) => startSync(url, body));
}

/** One key per click: a retried request (double click, flaky network) gives the same jobs. */
export function idempotencyKey(): string {
  const random = globalThis.crypto?.randomUUID?.();
  return random ?? `k-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
}

export type BatchSummary = { total: number; done: number; failed: number; active: number; progress: number; etaSeconds: number | null };

export function summarizeBatch(jobs: Job[]): BatchSummary {
  const done = jobs.filter((job) => job.status === 'succeeded').length;
  const failed = jobs.filter((job) => job.status === 'failed' || job.status === 'canceled').length;
  const active = jobs.length - done - failed;
  const progress = jobs.length === 0 ? 0 : jobs.reduce((sum, job) => sum + (isJobActive(job.status) ? job.progress : 100), 0) / jobs.length;
  const etas = jobs.filter((job) => isJobActive(job.status) && typeof job.eta_seconds === 'number').map((job) => job.eta_seconds as number);
  return { total: jobs.length, done, failed, active, progress, etaSeconds: etas.length ? Math.max(...etas) : null };
}
