import type { ReactNode } from 'react';

import { DriveLink } from '@/components/tool/drive-links';
import { Dialog } from '@/components/ui/dialog';
import { ProgressBar } from '@/components/ui/progress-bar';
import { Spinner } from '@/components/ui/spinner';
import type { BatchSummary } from '@/lib/batches';
import { formatEta } from '@/lib/format';
import { retryingText } from '@/lib/jobs';
import type { Drive, Job } from '@/types/api';

type ProcessingOverlayProps = {
  /** e.g. 'Processing Your Rebody Request'. */
  title: string;
  /** e.g. 'This usually takes about 15 seconds.' */
  message?: string;
  /** Real figures from the job, when there are any. */
  progress?: number | null;
  queuePosition?: number | null;
  etaSeconds?: number | null;
  /** 'retrying (attempt 2)' when the job runs again after a lost worker. */
  retrying?: string | null;
};

/** Full-screen overlay while a request runs. Not dismissable: the work goes on regardless. */
export function ProcessingOverlay({ title, message, progress, queuePosition, etaSeconds, retrying }: ProcessingOverlayProps) {
  return (
    <Dialog title={title} className="processing-overlay" busy>
      <Spinner />
      {message ? <p className="muted">{message}</p> : null}
      {typeof progress === 'number' ? <ProgressBar value={progress} /> : null}
      {queuePosition ? <p className="small">Position in queue: {queuePosition}</p> : null}
      {typeof etaSeconds === 'number' ? <p className="small">ETA {formatEta(etaSeconds)}</p> : null}
      {retrying ? <p className="small">{retrying[0].toUpperCase() + retrying.slice(1)}</p> : null}
    </Dialog>
  );
}

/** The processing overlay of one direct job, with its progress, queue position, ETA and retry. */
export function JobOverlay({ title, message, progress, job }: { title: string; message?: string; progress: number; job?: Job }) {
  return (
    <ProcessingOverlay
      title={title}
      message={message}
      progress={progress}
      queuePosition={job?.status === 'queued' ? job.queue_position : null}
      etaSeconds={job?.eta_seconds ?? null}
      retrying={job ? retryingText(job) : null}
    />
  );
}

export const SUCCESS_MESSAGE = 'Success! You can now check the drive for your images.';

type SuccessOverlayProps = {
  outputDrive?: Drive;
  /** e.g. 'Start New Session', 'Start New Earfit'. */
  startNewLabel: string;
  onStartNew: () => void;
  title?: string;
  message?: string;
  /** 'failure' when jobs of its batch failed, 'pending' while they still run: the headline says so. */
  tone?: BatchOutcome['tone'];
  /** Shown under the message, e.g. the batch's live progress. */
  children?: ReactNode;
};

export function SuccessOverlay({ outputDrive, startNewLabel, onStartNew, title = 'Success!', message = SUCCESS_MESSAGE, tone = 'success', children }: SuccessOverlayProps) {
  return (
    // The message repeats the title ('Success! …'): read it once.
    <Dialog title={title} hideTitle={message.startsWith(title)} className={`success-overlay${tone === 'success' ? '' : ` batch-${tone === 'failure' ? 'failed' : 'pending'}-overlay`}`}>
      <p>{message}</p>
      {children}
      <div className="overlay-actions">
        {outputDrive ? (
          <DriveLink drive={outputDrive} className="secondary-button">
            Output Drive
          </DriveLink>
        ) : null}
        <button type="button" className="primary-button" onClick={onStartNew}>
          {startNewLabel}
        </button>
      </div>
    </Dialog>
  );
}

export type BatchOutcome = { title: string; message: string; tone: 'success' | 'pending' | 'failure' };

function images(n: number): string {
  return n === 1 ? '1 image' : `${n} images`;
}

export const BATCH_RUNNING_MESSAGE = 'Still working: each image goes to the Output Drive as soon as it is done.';

/**
 * The headline of a submitted batch's overlay: the spec's success texts once every job has
 * succeeded; while jobs still run, how many are done; else what failed (the list under it
 * gives each failed job's reason).
 */
export function batchOutcome(summary: BatchSummary, success: { title: string; message: string } = { title: 'Success!', message: SUCCESS_MESSAGE }): BatchOutcome {
  const { total, done, failed, active } = summary;
  if (failed === 0 && active === 0) return { ...success, tone: 'success' };
  if (failed === 0) return { title: `${done} of ${total} done`, message: BATCH_RUNNING_MESSAGE, tone: 'pending' };
  if (failed === total) {
    return {
      title: total === 1 ? 'The image failed' : `All ${total} images failed`,
      message: `Nothing was written to the drive. The reason is shown under ${total === 1 ? 'the image' : 'each image'} below.`,
      tone: 'failure',
    };
  }
  const title = `${done} of ${total} done · ${failed} failed`;
  if (active > 0) {
    const running = active === 1 ? 'One is still running' : `${active} are still running`;
    return { title, message: `${images(failed)} failed: the reasons are shown below. ${running}${done ? `, and ${images(done)} went to the drive` : ''}.`, tone: 'failure' };
  }
  return { title, message: `${images(done)} went to the drive; ${images(failed)} failed: the reasons are shown below.`, tone: 'failure' };
}
