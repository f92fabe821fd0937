import { useEffect } from 'react';

import { useJob } from '@/lib/jobs';
import type { Job } from '@/types/api';

/** The providers' names as partners know them, by the prefix of a job's engine (`fashn:tryon-v1.6`). */
export const PROVIDER_NAMES: Readonly<Record<string, string>> = {
  fashn: 'FASHN',
  fal: 'fal',
  vertex: 'Vertex AI',
  replicate: 'Replicate',
  openai: 'OpenAI',
};

export const LOCAL_PREVIEW = 'Local preview';

type Made = Partial<Pick<Job, 'engine' | 'tier'>>;

/**
 * What made a result, as its label says it: "FASHN · studio" for a provider (an unknown
 * provider by its prefix as is), "Local preview" for the local engine of a generative tool,
 * and nothing for a classical tool or a job that has not run yet.
 */
export function engineLabelText(job: Made | null | undefined): string | null {
  if (job?.tier === 'preview') return LOCAL_PREVIEW;
  if (job?.tier !== 'studio') return null;
  const prefix = (job.engine ?? '').split(':', 1)[0].trim();
  if (!prefix) return 'studio';
  return `${PROVIDER_NAMES[prefix] ?? prefix} · studio`;
}

/** The small label on a result: which engine made it (see engineLabelText). */
export function EngineLabel({ job }: { job: Made | null | undefined }) {
  const text = engineLabelText(job);
  if (!text) return null;
  return (
    <span className={`engine-label engine-${job?.tier}`} title={job?.engine || undefined}>
      {text}
    </span>
  );
}

/**
 * The label of a job known by its id only (the studio tools' answers carry `job_id`). It shows
 * once the job is read: `onShown` lets a page that keeps its end in view scroll again then.
 */
export function JobEngineLabel({ jobId, onShown }: { jobId: string | null | undefined; onShown?: () => void }) {
  const job = useJob(jobId);
  const shown = Boolean(jobId && engineLabelText(job.data));
  useEffect(() => {
    if (shown) onShown?.();
  }, [shown, onShown]);
  return jobId ? <EngineLabel job={job.data} /> : null;
}

/** The `job_id` of a tool's answer, when it carries one. */
export function answerJobId(answer: unknown): string | null {
  if (!answer || typeof answer !== 'object' || Array.isArray(answer)) return null;
  const id = (answer as Record<string, unknown>).job_id;
  return typeof id === 'string' && id ? id : null;
}
