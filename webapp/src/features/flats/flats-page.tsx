import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';

import { ActivityLog } from '@/components/tool/activity-log';
import { BatchProgressView, RetryFailed } from '@/components/tool/batch-progress';
import { DriveLink } from '@/components/tool/drive-links';
import { JobLog } from '@/components/tool/job-log';
import { ModelLibraryNotice, RunBlockedReason } from '@/components/tool/model-library-notice';
import { StatusBar } from '@/components/tool/status-bar';
import { ToolPage } from '@/components/tool/tool-page';
import { useToast } from '@/components/ui/toast';
import { useResetAfter } from '@/hooks/use-reset-after';
import { activityKeys } from '@/lib/activity';
import { type BatchSubmitted, type BatchSummary, summarizeBatch, useBatchJobs, useStartSync } from '@/lib/batches';
import { useToolDrives } from '@/lib/drives';
import { statusText } from '@/lib/http-status';
import { isJobActive } from '@/lib/jobs';
import { useLibraryFit } from '@/lib/library-models';
import { useToolChoices } from '@/lib/tools';
import type { Drive } from '@/types/api';

/** Spec part 2, §4 and §9: countdown from 150 s; steps at 120, 60 and 0 s; error resets after 3 s. */
export const FLATS_COUNTDOWN_S = 150;
export const FLATS_RESET_MS = 3000;
export const FLATS_STEPS = [
  { label: 'Analyzing input clothing items', countdownAt: 120, progressAt: 20 },
  { label: 'Compositing outfit on model', countdownAt: 60, progressAt: 60 },
  { label: 'Uploading to output drive', countdownAt: 0, progressAt: 100 },
] as const;

type SyncState = 'idle' | 'processing' | 'complete' | 'error';

// The input drives in the catalogue's order of the categories (SHOES, BOTTOM, TOP, OVERLAYER);
// the drives API sorts them by name.
const byCategory = (categories: string[]) => (drive: Drive) => {
  const rank = drive.category ? categories.indexOf(drive.category) : -1;
  return rank < 0 ? categories.length : rank;
};

/** Sync complete only when no outfit failed; otherwise how many were made and how many failed. */
export function flatsOutcome({ total, done, failed }: BatchSummary): string {
  if (failed === 0) return 'Sync complete.';
  return `Sync finished with failures: ${done} of ${total} done · ${failed} failed. The reasons are shown below.`;
}

const clock = (date: Date) => date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });

export function FlatsPage() {
  const { toast } = useToast();
  const queryClient = useQueryClient();
  const startSync = useStartSync('/api/flats-catalog/sync');
  const [state, setState] = useState<SyncState>('idle');
  const [batch, setBatch] = useState<BatchSubmitted | null>(null);
  const [countdown, setCountdown] = useState(FLATS_COUNTDOWN_S);
  const categories = useToolChoices('flats', 'categories');
  const categoryRank = byCategory(categories);
  const inputs = [...useToolDrives('flats', 'input')].sort((a, b) => categoryRank(a) - categoryRank(b));
  const [outputDrive] = useToolDrives('flats', 'output');
  const query = useBatchJobs(batch?.batch_id, batch?.jobs);
  const jobs = query.data?.results ?? batch?.jobs ?? [];
  const summary = summarizeBatch(jobs);
  const finished = batch !== null && jobs.every((job) => !isJobActive(job.status));
  const { blocked } = useLibraryFit('flats');

  // The spec's countdown, for the steps and ETA until the jobs have figures of their own.
  useEffect(() => {
    if (state !== 'processing') return undefined;
    const timer = window.setInterval(() => setCountdown((value) => Math.max(value - 1, -30)), 1000);
    return () => window.clearInterval(timer);
  }, [state]);

  useEffect(() => {
    if (state === 'processing' && finished) {
      setState('complete');
      void queryClient.invalidateQueries({ queryKey: activityKeys.list('flats') });
    }
  }, [state, finished, queryClient]);

  useResetAfter(state === 'error', () => setState('idle'), FLATS_RESET_MS);

  const run = async () => {
    if (state === 'processing') return; // a second run is blocked while one is going
    setBatch(null);
    setCountdown(FLATS_COUNTDOWN_S);
    setState('processing');
    try {
      const submitted = await startSync.mutateAsync({
        action: 'sync',
        timestamp: new Date().toISOString(),
        categories,
      });
      setBatch(submitted);
    } catch (error) {
      setState('error');
      const reason = statusText(error);
      toast({ title: 'Sync Failed', description: reason ? `Sync failed: ${reason}` : 'Sync failed', variant: 'destructive' });
    }
  };

  const realFigures = jobs.some((job) => job.progress > 0 || job.status !== 'queued');
  // A look that failed put nothing in the output drive: the last step is done only for the
  // outfits that were made, and the countdown says what failed.
  const stepDone = (step: (typeof FLATS_STEPS)[number]) => {
    if (step.progressAt === 100) return finished && batch !== null && (summary.failed === 0 || summary.done > 0);
    if (state === 'complete') return true;
    return realFigures ? summary.progress >= step.progressAt : countdown <= step.countdownAt;
  };
  const remaining = summary.etaSeconds ?? (state === 'processing' ? Math.max(countdown, 0) : null);
  const statusBar = (
    <StatusBar
      processing={state === 'processing'}
      queue={`${state === 'processing' ? 1 : 0}/1`}
      eta={state === 'processing' && remaining !== null ? clock(new Date(Date.now() + remaining * 1000)) : '—'}
    />
  );

  return (
    <ToolPage slug="flats" statusBar={statusBar}>
      <div className="tool-workspace">
        <section className="prep-note" aria-labelledby="flats-guidelines">
          <h2 id="flats-guidelines">Guidelines</h2>
          <ul className="checklist">
            <li>Each garment needs a front and a back view; footwear also a side view.</li>
            <li>Suffix the files _FRONT, _BACK or _SIDE (e.g. SKU123_FRONT.jpg).</li>
            <li>Put each garment in its category's input drive: SHOES, BOTTOM, TOP or OVERLAYER.</li>
            <li>The products of one sync are worn together as one look. To sync several looks at once, start each file with its look code: LOOK7__SKU123_FRONT.jpg.</li>
          </ul>
        </section>
        <ModelLibraryNotice tool="flats" />
        <nav className="drive-links" aria-label="Input drives">
          {inputs.map((drive) => (
            <DriveLink key={drive.folder} drive={drive} className="secondary-button">
              {(drive.category ?? drive.label).toUpperCase()}
            </DriveLink>
          ))}
          {outputDrive ? (
            <DriveLink drive={outputDrive} className="secondary-button">
              Output Drive
            </DriveLink>
          ) : null}
        </nav>
        <div className="run-area">
          <button
            type="button"
            className="primary-button"
            onClick={() => void run()}
            disabled={state === 'processing' || blocked !== null}
            aria-describedby={blocked ? 'flats-blocked' : undefined}
          >
            Run
          </button>
          <RunBlockedReason id="flats-blocked" reason={blocked} />
        </div>
        {state !== 'idle' || batch ? (
          <section className="countdown-panel" aria-label="Sync progress">
            <p className="countdown" role="status">
              {state === 'processing' ? (remaining !== null && remaining > 0 ? `About ${Math.round(remaining)} s remaining` : 'Finalizing…') : null}
              {state === 'complete' ? flatsOutcome(summary) : null}
              {state === 'error' ? 'Sync failed.' : null}
            </p>
            <ol className="steps">
              {FLATS_STEPS.map((step, index) => (
                <li key={step.label} className={stepDone(step) ? 'step is-done' : 'step'}>
                  <span className="step-number" aria-hidden="true">
                    {stepDone(step) ? '✓' : index + 1}
                  </span>
                  {step.label}
                  <span className="visually-hidden">{stepDone(step) ? ' (done)' : ''}</span>
                </li>
              ))}
            </ol>
            {batch ? (
              batch.count === 0 && !batch.skipped?.length ? (
                <p className="notice">No new files in the input drives.</p>
              ) : (
                <>
                  <BatchProgressView jobs={jobs} skipped={batch.skipped} title="Outfits" />
                  <RetryFailed batchId={batch.batch_id} jobs={jobs} />
                </>
              )
            ) : null}
          </section>
        ) : null}
        <ActivityLog tool="flats" />
        {/* the spec's log says what happened; this one links each job's outputs */}
        <JobLog tool="flats" refreshKey={batch?.batch_id} />
      </div>
    </ToolPage>
  );
}
