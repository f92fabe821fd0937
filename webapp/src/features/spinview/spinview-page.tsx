import { useState } from 'react';

import { ActivityLog } from '@/components/tool/activity-log';
import { SyncBatch } from '@/components/tool/batch-progress';
import { DriveLink } from '@/components/tool/drive-links';
import { JobLog } from '@/components/tool/job-log';
import { StatusBar } from '@/components/tool/status-bar';
import { ToolPage } from '@/components/tool/tool-page';
import { useToast } from '@/components/ui/toast';
import { useResetAfter } from '@/hooks/use-reset-after';
import { type BatchSubmitted, useStartSync } from '@/lib/batches';
import { useToolDrives } from '@/lib/drives';
import { statusText } from '@/lib/http-status';
import { useToolQueue } from '@/lib/queues';

/** Complete or error go back to idle after 3 s (spec part 1, §4). */
export const SPINVIEW_RESET_MS = 3000;
export const SPINVIEW_SUCCESS = 'Your video queue is been processed. Average completion time: 110s per video.';

type SyncState = 'idle' | 'processing' | 'complete' | 'error';

export function SpinviewPage() {
  const { toast } = useToast();
  const startSync = useStartSync('/api/catalog-video/sync');
  const [state, setState] = useState<SyncState>('idle');
  const [batch, setBatch] = useState<BatchSubmitted | null>(null);
  const [lastSync, setLastSync] = useState<Date | null>(null);
  const [errorMessage, setErrorMessage] = useState<string | null>(null);
  const [inputDrive] = useToolDrives('spinview', 'input');
  const [outputDrive] = useToolDrives('spinview', 'output');
  const { queue } = useToolQueue('spinview');
  const inFlight = queue ? queue.queued + queue.running : 0;

  useResetAfter(state === 'complete' || state === 'error', () => setState('idle'), SPINVIEW_RESET_MS);

  const sync = async () => {
    setState('processing');
    setErrorMessage(null);
    try {
      const submitted = await startSync.mutateAsync({ action: 'sync', timestamp: new Date().toISOString() });
      setBatch(submitted);
      setLastSync(new Date());
      setState('complete');
      toast({ title: '✅ Sync Complete!', description: 'Videos have been synchronized successfully.' });
    } catch (error) {
      setState('error');
      setErrorMessage(error instanceof Error ? error.message : null);
      toast({ title: '❌ Sync Failed', description: `Sync failed: ${statusText(error)}`, variant: 'destructive' });
    }
  };

  const processing = state === 'processing';
  // The spec's states (processing while the sync call is out, complete or error, idle again
  // 3 s later); the queue keeps counting the videos still being made, as the list below shows.
  const statusBar = (
    <StatusBar
      processing={processing}
      idleText={state === 'complete' ? 'Complete' : state === 'error' ? 'Error' : undefined}
      queue={processing ? Math.max(1, inFlight) : inFlight}
      eta={lastSync ? lastSync.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }) : '—'}
    />
  );

  return (
    <ToolPage slug="spinview" statusBar={statusBar}>
      <div className="tool-workspace">
        <div className="prep-note">
          <p>
            Prep: put each product's photos in the Input Drive, then Run sync. Every new product becomes a turntable video in the Output
            Drive; average completion time is 110 s per video. Files already taken are skipped.
          </p>
        </div>
        <div className="sync-row">
          {inputDrive ? <DriveLink drive={inputDrive} className="secondary-button">Input Drive</DriveLink> : null}
          <button type="button" className="primary-button" onClick={() => void sync()} disabled={processing}>
            {processing ? 'Syncing…' : 'Run sync'}
          </button>
          {outputDrive ? <DriveLink drive={outputDrive} className="secondary-button">Output Drive</DriveLink> : null}
        </div>
        <p className="sync-state" role="status">
          {state === 'processing' ? 'Sync in progress…' : null}
          {state === 'complete' ? SPINVIEW_SUCCESS : null}
          {state === 'error' ? `Error${errorMessage ? `: ${errorMessage}` : ''}` : null}
        </p>
        <SyncBatch batch={batch} title="Sync progress" empty="No new files in the Input Drive." />
        <ActivityLog tool="spinview" />
        {/* the spec's log says what happened; this one links each job's outputs */}
        <JobLog tool="spinview" refreshKey={batch?.batch_id} />
      </div>
    </ToolPage>
  );
}
