import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';

import { apiClient } from '@/lib/api-client';
import { idempotencyKey } from '@/lib/batches';
import { jobKeys, useJob } from '@/lib/jobs';
import { queueKeys } from '@/lib/queues';
import { useSubmit } from '@/lib/submit';
import type { Job, JobOutput } from '@/types/api';

/**
 * Direct tools (Restyle, Try-On, Ecommerce Asset, Garment Integration, Rebody) asked with
 * `Prefer: respond-async`: the answer is the queued job at once, which we poll, so the page
 * shows the job's real progress, queue position and ETA instead of the spec's timer.
 */
export const submitDirectJob = (url: string, body: Record<string, unknown>): Promise<Job> =>
  apiClient.post<Job>(url, body, { headers: { Prefer: 'respond-async', 'Idempotency-Key': idempotencyKey() } });

/** The spec's fake progress, used only while the job has no figure of its own yet. */
export type ProgressTicker = { intervalMs: number; next: (value: number) => number };

/** Try-on style pages: +5 every 600 ms up to 90 (spec part 1, §4 and §9). */
export const TRY_ON_TICKER: ProgressTicker = { intervalMs: 600, next: (value) => Math.min(90, value + 5) };
/** Restyle: every second 10 % of the remaining distance, up to 95. */
export const RESTYLE_TICKER: ProgressTicker = {
  intervalMs: 1000,
  next: (value) => Math.min(95, value + (100 - value) * 0.1),
};

export type DirectPhase = 'idle' | 'running' | 'done' | 'failed';

export function useDirectJob(url: string, ticker: ProgressTicker = TRY_ON_TICKER) {
  const queryClient = useQueryClient();
  // The queued job is cached before the page learns its id, so the first poll starts from it.
  const submit = useSubmit(async (body: Record<string, unknown>) => {
    const submitted = await submitDirectJob(url, body);
    queryClient.setQueryData(jobKeys.detail(submitted.id), submitted);
    return submitted;
  });
  const jobId = submit.data?.id ?? null;
  const requestError = submit.error;
  const [fallback, setFallback] = useState(0);
  const query = useJob(jobId);
  const job = jobId ? query.data : undefined;

  let phase: DirectPhase = 'idle';
  if (requestError) phase = 'failed';
  else if (submit.isPending) phase = 'running';
  else if (job) {
    if (job.status === 'succeeded') phase = 'done';
    else if (job.status === 'failed' || job.status === 'canceled') phase = 'failed';
    else phase = 'running';
  }
  // The status bar's queue figures are polled; refresh them when the job starts and ends so it
  // says Processing and System Ready with the page, not up to a poll later.
  const ended = phase === 'done' || phase === 'failed';
  useEffect(() => {
    if (!jobId) return;
    void queryClient.invalidateQueries({ queryKey: queueKeys.all });
    // The tool page's recent jobs: the new job at once, its final state as soon as it has one.
    void queryClient.invalidateQueries({ queryKey: jobKeys.lists() });
  }, [jobId, ended, queryClient]);

  const realProgress = job && job.progress > 0 ? job.progress : null;
  const ticking = phase === 'running' && realProgress === null;

  useEffect(() => {
    if (!ticking) return undefined;
    const timer = window.setInterval(() => setFallback(ticker.next), ticker.intervalMs);
    return () => window.clearInterval(timer);
  }, [ticking, ticker]);

  const { mutateAsync, reset: resetSubmit } = submit;
  const run = useCallback(
    async (body: Record<string, unknown>) => {
      resetSubmit();
      setFallback(0);
      shown.current = 0;
      try {
        return await mutateAsync(body);
      } catch {
        // the mutation holds the error: the phase says failed
        return null;
      }
    },
    [mutateAsync, resetSubmit],
  );

  const reset = useCallback(() => {
    resetSubmit();
    setFallback(0);
    shown.current = 0;
  }, [resetSubmit]);

  // The bar never goes back: the spec's ticker may have climbed past the job's first real
  // figure while it waited in the queue, and then holds until the job passes it.
  const shown = useRef(0);
  let progress = 0;
  if (phase === 'done') progress = 100;
  else if (phase === 'running') progress = Math.max(shown.current, realProgress ?? fallback);
  shown.current = phase === 'idle' ? 0 : progress;

  const output: JobOutput | undefined = phase === 'done' ? job?.outputs[0] : undefined;
  return { phase, job, progress, output, requestError, run, reset };
}
