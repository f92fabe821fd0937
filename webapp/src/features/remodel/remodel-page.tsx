import { useEffect, useState } from 'react';

import { SyncBatch } from '@/components/tool/batch-progress';
import { DriveLink } from '@/components/tool/drive-links';
import { JobLog } from '@/components/tool/job-log';
import { EMPTY_LIBRARY, ModelLibraryNotice, RunBlockedReason } from '@/components/tool/model-library-notice';
import { StatusBar } from '@/components/tool/status-bar';
import { ToolPage } from '@/components/tool/tool-page';
import { useToast } from '@/components/ui/toast';
import { useResetAfter } from '@/hooks/use-reset-after';
import { type BatchSubmitted, type BatchSummary, summarizeBatch, useBatchJobs, useStartSync } from '@/lib/batches';
import { useToolDrives } from '@/lib/drives';
import { formatEta } from '@/lib/format';
import { statusText } from '@/lib/http-status';
import { isJobActive } from '@/lib/jobs';
import { fitOf, useLibraryFit, useLibraryModels } from '@/lib/library-models';

/** Spec part 2, §9: about 15 s per image; status back to idle after 3 s; toast 10 s. */
export const REMODEL_RESET_MS = 3000;
export const REMODEL_TOAST_MS = 10000;

type RunState = 'idle' | 'processing' | 'complete';

/** The spec's Complete once every job succeeded; otherwise what failed (the list below gives why). */
export function remodelDoneText({ total, failed }: Pick<BatchSummary, 'total' | 'failed'>): string {
  if (failed === 0) return 'Complete';
  return failed === total ? 'Failed' : `Complete · ${failed} failed`;
}

function RemodelStatusBar({ state, model, etaSeconds, summary }: { state: RunState; model: string; etaSeconds: number | null; summary: BatchSummary }) {
  const processing = state === 'processing';
  const eta = processing ? (etaSeconds !== null ? formatEta(etaSeconds) : '~15s') : '—';
  return <StatusBar processing={processing} idleText={state === 'complete' ? remodelDoneText(summary) : undefined} model={model} eta={eta} />;
}

export function RemodelPage() {
  const { toast } = useToast();
  const startSync = useStartSync('/api/remodel/process');
  const models = useLibraryModels();
  const [modelId, setModelId] = useState('');
  const [state, setState] = useState<RunState>('idle');
  const [batch, setBatch] = useState<BatchSubmitted | null>(null);
  const [inputDrive] = useToolDrives('remodel', 'input');
  const [outputDrive] = useToolDrives('remodel', 'output');
  const batchJobs = useBatchJobs(batch?.batch_id, batch?.jobs);
  const jobs = batchJobs.data?.results ?? batch?.jobs ?? [];
  const summary = summarizeBatch(jobs);
  const finished = batch !== null && jobs.every((job) => !isJobActive(job.status));
  const model = models.data?.find((entry) => entry.id === modelId);
  const { blocked: noneFit } = useLibraryFit('remodel');
  // The chosen model's photo would be refused by every job: say why instead of running.
  const chosenFit = model ? fitOf(model, 'remodel') : null;
  const blocked = noneFit ?? (chosenFit && !chosenFit.ok ? `${model?.name ?? ''}: ${chosenFit.reason ?? ''}` : null);

  // Processing lasts until the batch's jobs are done, so the bar shows their real ETA.
  useEffect(() => {
    if (state === 'processing' && finished) setState('complete');
  }, [state, finished]);

  useResetAfter(state === 'complete', () => setState('idle'), REMODEL_RESET_MS);

  const run = async () => {
    if (!model || blocked || state === 'processing') return;
    setBatch(null);
    setState('processing');
    try {
      const submitted = await startSync.mutateAsync({ modelId: model.id, modelPicture: model.image });
      setBatch(submitted);
      toast({ title: 'Generation Started!', description: 'This takes about 15 seconds per image.', duration: REMODEL_TOAST_MS });
    } catch (error) {
      setState('idle');
      toast({ title: 'Generation Failed', description: `Generation failed: ${statusText(error)}`, variant: 'destructive' });
    }
  };

  const library = models.data ?? [];
  return (
    <ToolPage slug="remodel" statusBar={<RemodelStatusBar state={state} model={model?.name ?? ''} etaSeconds={summary.active ? summary.etaSeconds : null} summary={summary} />}>
      <div className="tool-workspace">
        <section aria-labelledby="remodel-models">
          <h2 id="remodel-models">Choose a model</h2>
          {models.isLoading ? <p className="muted">Loading your models…</p> : null}
          {models.isError ? (
            <p className="field-error" role="alert">
              Could not load your model library.
            </p>
          ) : null}
          {models.data && library.length === 0 ? (
            <p className="notice notice-warning">{EMPTY_LIBRARY} Remodel gives the people in your Input Drive's catalogue photos the face of the model you choose here.</p>
          ) : null}
          <ModelLibraryNotice tool="remodel" />
          <div className="model-picker" role="radiogroup" aria-label="Model">
            {library.map((entry) => (
              <label key={entry.id} className={`model-option${entry.id === modelId ? ' is-selected' : ''}`}>
                <input type="radio" name="remodel-model" value={entry.id} checked={entry.id === modelId} onChange={() => setModelId(entry.id)} disabled={state === 'processing'} />
                <img src={entry.image} alt="" loading="lazy" />
                <span>{entry.name}</span>
              </label>
            ))}
          </div>
        </section>
        <div className="remodel-cards">
          <section className="step-card" aria-labelledby="remodel-input">
            <h2 id="remodel-input">Input Drive</h2>
            <p className="muted small">Put catalogue photos of a person wearing the garments here; the chosen model takes their place, the garments stay as they are.</p>
            {inputDrive ? <DriveLink drive={inputDrive} className="secondary-button">Input Drive</DriveLink> : null}
          </section>
          <section className="step-card" aria-labelledby="remodel-run">
            <h2 id="remodel-run">Generate</h2>
            <p className="muted small">About 15 seconds per image.</p>
            <button
              type="button"
              className="primary-button"
              onClick={() => void run()}
              disabled={!model || blocked !== null || state === 'processing'}
              aria-describedby={blocked ? 'remodel-blocked' : undefined}
            >
              Run
            </button>
            <RunBlockedReason id="remodel-blocked" reason={blocked} />
          </section>
          <section className="step-card" aria-labelledby="remodel-output">
            <h2 id="remodel-output">Output Drive</h2>
            <p className="muted small">Results arrive here.</p>
            {outputDrive ? <DriveLink drive={outputDrive} className="secondary-button">Output Drive</DriveLink> : null}
          </section>
        </div>
        <SyncBatch batch={batch} title="Generation progress" empty="No new files in the Input Drive." />
        <JobLog tool="remodel" refreshKey={batch?.batch_id} />
      </div>
    </ToolPage>
  );
}
