import { useEffect, useRef, useState } from 'react';

import { ImageUrlInput } from '@/components/tool/image-url-input';
import { JobLog } from '@/components/tool/job-log';
import { DirectResult, JobProgress } from '@/components/tool/job-result';
import { JobOverlay } from '@/components/tool/overlays';
import { type LogLine, SystemLog, useSystemLog } from '@/components/tool/system-log';
import { ToolPage } from '@/components/tool/tool-page';
import { type ToastInput, useToast } from '@/components/ui/toast';
import { ApiError } from '@/lib/api-client';
import { type ProgressTicker, TRY_ON_TICKER, useDirectJob } from '@/lib/direct-jobs';
import type { Job } from '@/types/api';

import COPY from '@/components/tool/direct-tools.json';

export const WAITING_LINE = 'Waiting for input URLs…';
export const GENERATING_LINE = 'Generating…';
export const REQUEST_SENT_LINE = 'Request sent. Waiting for result…';
export const GENERATION_FAILED_LINE = 'Generation failed.';
export const NETWORK_LINE = 'Network or server issue.';

/** A direct tool's page copy and request shape (direct-tools.json, by slug). */
type DirectToolCopy = {
  endpoint: string;
  /** The two URL inputs, in the page's order. */
  labels: string[];
  /** The request's field for each input, in the same order. */
  fields: string[];
  /** Logged as SYSTEM ALERT when a URL is missing; null: Run is disabled instead (Restyle). */
  missingMessage: string | null;
  readyLine?: string;
  exceptionLine?: string;
  runLabel?: string;
  newLabel: string;
  downloadLabel?: string;
  /** Full-screen overlay while running (Garment Integration). */
  overlay?: { title: string; message: string };
  resultAlt: string;
  prep: string;
};

const DIRECT_TOOLS = COPY as Record<string, DirectToolCopy>;

type DirectToolPageProps = {
  slug: string;
  ticker?: ProgressTicker;
  /** Restyle tells the outcome in toasts instead of a system log. */
  toasts?: { failed: (reason: string, error: unknown) => ToastInput; complete: ToastInput };
};

/** Why a request or job failed, as the log and toasts say it. */
export function failureLines(error: unknown, job: Job | undefined, exceptionLine: string): LogLine[] {
  if (job?.error) return [{ level: 'error', text: GENERATION_FAILED_LINE }, { level: 'error', text: job.error.message }];
  if (job && (job.status === 'failed' || job.status === 'canceled')) return [{ level: 'error', text: GENERATION_FAILED_LINE }];
  if (error instanceof ApiError && error.status < 500) return [{ level: 'error', text: GENERATION_FAILED_LINE }, { level: 'error', text: error.message }];
  if (error instanceof ApiError || error instanceof TypeError) return [{ level: 'error', text: NETWORK_LINE }];
  return [{ level: 'error', text: exceptionLine }];
}

/** Restyle, Virtual Try-On, Ecommerce Asset and Garment Integration: two URLs in, one image out. */
export function DirectToolPage({ slug, ticker = TRY_ON_TICKER, toasts }: DirectToolPageProps) {
  const {
    endpoint,
    labels,
    fields,
    missingMessage,
    readyLine = 'Preview ready.',
    exceptionLine = 'Generation threw an exception.',
    runLabel = 'Run',
    newLabel,
    downloadLabel = 'Download Image',
    overlay,
    resultAlt,
    prep,
  } = DIRECT_TOOLS[slug];
  const { toast } = useToast();
  const [first, setFirst] = useState('');
  const [second, setSecond] = useState('');
  const log = useSystemLog([{ level: 'log', text: WAITING_LINE }]);
  const direct = useDirectJob(endpoint, ticker);
  const settled = useRef<string | null>(null);
  const running = direct.phase === 'running';
  const bothGiven = Boolean(first.trim() && second.trim());

  // Report each outcome once: the result line or the failure's reasons.
  useEffect(() => {
    const key = `${direct.phase}:${direct.job?.id ?? 'request'}`;
    if ((direct.phase !== 'done' && direct.phase !== 'failed') || settled.current === key) return;
    settled.current = key;
    if (direct.phase === 'done') {
      log.add({ level: 'log', text: readyLine });
      if (toasts) toast(toasts.complete);
    } else {
      const failure = failureLines(direct.requestError, direct.job, exceptionLine);
      log.add(...failure);
      if (toasts) toast({ ...toasts.failed(failure.at(-1)?.text ?? GENERATION_FAILED_LINE, direct.requestError), variant: 'destructive' });
    }
  }, [direct.phase, direct.job, direct.requestError, readyLine, exceptionLine, toasts, toast]);

  const run = () => {
    if (!bothGiven) {
      if (missingMessage) log.alert(missingMessage);
      return;
    }
    settled.current = null;
    log.restart([
      { level: 'log', text: GENERATING_LINE },
      { level: 'log', text: REQUEST_SENT_LINE },
    ]);
    void direct.run({ [fields[0]]: first.trim(), [fields[1]]: second.trim() });
  };

  const startNew = () => {
    direct.reset();
    settled.current = null;
    setFirst('');
    setSecond('');
    log.restart([{ level: 'log', text: WAITING_LINE }]);
  };

  return (
    <ToolPage slug={slug} busy={running}>
      <div className="tool-workspace direct-tool">
        <div className="prep-note">
          <p>{prep}</p>
        </div>
        <div className="direct-grid">
          <section className="direct-inputs" aria-label="Inputs">
            <ImageUrlInput label={labels[0]} value={first} onChange={setFirst} disabled={running} />
            <ImageUrlInput label={labels[1]} value={second} onChange={setSecond} disabled={running} />
            <div className="run-area">
              <button type="button" className="primary-button" onClick={run} disabled={running || (!missingMessage && !bothGiven)}>
                {runLabel}
              </button>
            </div>
            {running || direct.phase === 'done' ? <JobProgress progress={direct.progress} job={direct.job} /> : null}
            {toasts ? null : <SystemLog lines={log.lines} />}
          </section>
          <DirectResult
            className="direct-result"
            direct={direct}
            alt={resultAlt}
            downloadLabel={downloadLabel}
            newLabel={newLabel}
            onStartNew={startNew}
            placeholder="The result shows here."
          />
        </div>
        <JobLog tool={slug} />
      </div>
      {overlay && running ? (
        <JobOverlay title={overlay.title} message={overlay.message} progress={direct.progress} job={direct.job} />
      ) : null}
    </ToolPage>
  );
}
