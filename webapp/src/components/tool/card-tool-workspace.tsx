import type { ReactNode } from 'react';

import { BatchProgress } from '@/components/tool/batch-progress';
import { DriveLinks } from '@/components/tool/drive-links';
import { JobLog } from '@/components/tool/job-log';
import { batchOutcome, ProcessingOverlay, SUCCESS_MESSAGE, SuccessOverlay } from '@/components/tool/overlays';
import type { BatchPhase } from '@/hooks/use-batch-run';
import { type BatchSubmitted, summarizeBatch, useBatchJobs } from '@/lib/batches';
import { useToolDrives } from '@/lib/drives';
import type { Drive } from '@/types/api';

type CardToolWorkspaceProps = {
  slug: string;
  prep?: ReactNode;
  getUrls: { onClick: () => void; loading: boolean; label?: string };
  /** The card grid (or list). */
  cards: ReactNode;
  /** Between the cards and the run button, e.g. Baghold's Ready to Process panel. */
  runArea: ReactNode;
  phase: BatchPhase;
  batch: BatchSubmitted | null;
  errorMessage: string | null;
  overlay: { title: string; message: string };
  startNewLabel: string;
  onStartNew: () => void;
  successTitle?: string;
  successMessage?: string;
};

/** The frame every card tool shares: drives, Get URLs, cards, run, overlays and the batch. */
export function CardToolWorkspace({
  slug,
  prep,
  getUrls,
  cards,
  runArea,
  phase,
  batch,
  errorMessage,
  overlay,
  startNewLabel,
  onStartNew,
  successTitle,
  successMessage,
}: CardToolWorkspaceProps) {
  const [outputDrive] = useToolDrives(slug, 'output');
  return (
    <div className="tool-workspace">
      {prep ? <div className="prep-note">{prep}</div> : null}
      <div className="tool-toolbar">
        <DriveLinks tool={slug} />
        <button type="button" className="secondary-button" onClick={getUrls.onClick} disabled={getUrls.loading || phase === 'processing'}>
          {getUrls.loading ? 'Fetching…' : (getUrls.label ?? 'Get URLs')}
        </button>
      </div>
      {cards}
      {errorMessage ? (
        <p className="form-error" role="alert">
          {errorMessage}
        </p>
      ) : null}
      <div className="run-area">{runArea}</div>
      {batch && phase !== 'success' ? <BatchProgress key={batch.batch_id} batch={batch} title="Last batch" /> : null}
      <JobLog tool={slug} refreshKey={batch?.batch_id} />
      {phase === 'processing' ? <ProcessingOverlay title={overlay.title} message={overlay.message} /> : null}
      {phase === 'success' ? (
        <BatchDoneOverlay
          batch={batch}
          outputDrive={outputDrive}
          startNewLabel={startNewLabel}
          onStartNew={onStartNew}
          success={{ title: successTitle ?? 'Success!', message: successMessage ?? SUCCESS_MESSAGE }}
        />
      ) : null}
    </div>
  );
}

type BatchDoneOverlayProps = {
  batch: BatchSubmitted | null;
  outputDrive?: Drive;
  startNewLabel: string;
  onStartNew: () => void;
  success: { title: string; message: string };
};

/** The overlay after a submit: the spec's success texts, unless jobs of the batch failed, in
 * which case the headline says so and the list under it gives each failed job's reason. */
function BatchDoneOverlay({ batch, outputDrive, startNewLabel, onStartNew, success }: BatchDoneOverlayProps) {
  const query = useBatchJobs(batch?.batch_id, batch?.jobs);
  const jobs = query.data?.results ?? batch?.jobs ?? [];
  const outcome = batchOutcome(summarizeBatch(jobs), success);
  return (
    <SuccessOverlay outputDrive={outputDrive} startNewLabel={startNewLabel} onStartNew={onStartNew} title={outcome.title} message={outcome.message} tone={outcome.tone}>
      {batch ? <BatchProgress key={batch.batch_id} batch={batch} /> : null}
    </SuccessOverlay>
  );
}

/** Per-card errors from the server's 400, under the card. */
export function CardErrors({ messages }: { messages?: string[] }) {
  if (!messages?.length) return null;
  return (
    <ul className="card-errors" role="alert">
      {messages.map((message) => (
        <li key={message} className="field-error small">
          {message}
        </li>
      ))}
    </ul>
  );
}
