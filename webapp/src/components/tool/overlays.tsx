import type { ReactNode } from 'react';

import { DriveLink } from '@/components/tool/drive-links';
import { Dialog } from '@/components/ui/dialog';
import { ProgressBar } from '@/components/ui/progress-bar';
import { Spinner } from '@/components/ui/spinner';
import { formatEta } from '@/lib/format';
import type { Drive } from '@/types/api';

type ProcessingOverlayProps = {
  /** e.g. 'Processing Your Rebody Request'. */
  title: string;
  /** e.g. 'This usually takes about 15 seconds.' */
  message?: string;
  /** Real figures from the job, when there are any. */
  progress?: number | null;
  queuePosition?: number | null;
  etaSeconds?: number | null;
};

/** Full-screen overlay while a request runs. Not dismissable: the work goes on regardless. */
export function ProcessingOverlay({ title, message, progress, queuePosition, etaSeconds }: ProcessingOverlayProps) {
  return (
    <Dialog title={title} className="processing-overlay" busy>
      <Spinner />
      {message ? <p className="muted">{message}</p> : null}
      {typeof progress === 'number' ? <ProgressBar value={progress} /> : null}
      {queuePosition ? <p className="small">Position in queue: {queuePosition}</p> : null}
      {typeof etaSeconds === 'number' ? <p className="small">ETA {formatEta(etaSeconds)}</p> : null}
    </Dialog>
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
  /** Shown under the message, e.g. the batch's live progress. */
  children?: ReactNode;
};

export function SuccessOverlay({ outputDrive, startNewLabel, onStartNew, title = 'Success!', message = SUCCESS_MESSAGE, children }: SuccessOverlayProps) {
  return (
    // The message repeats the title ('Success! …'): read it once.
    <Dialog title={title} hideTitle={message.startsWith(title)} className="success-overlay">
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
