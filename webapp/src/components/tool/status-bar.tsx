import { formatEta } from '@/lib/format';
import { useToolQueue } from '@/lib/queues';
import type { ToolQueue } from '@/types/api';

type StatusBarProps = {
  processing: boolean;
  /** Jobs in flight, or already formatted (Flats shows '0/1'). */
  queue?: number | string;
  /** Already formatted, e.g. '~2m', a clock time, or '—'. */
  eta: string;
  /** Instead of System Ready when not processing (Remodel: 'Complete'). */
  idleText?: string;
  /** Remodel shows the chosen model in place of the queue. */
  model?: string;
};

/** System Ready / Processing, Queue, ETA (spec part 1, §1). */
export function StatusBar({ processing, queue, eta, idleText = 'System Ready', model }: StatusBarProps) {
  return (
    <dl className="status-bar" role="group" aria-label="Tool status">
      <div className="status-item">
        <dt className="visually-hidden">Status</dt>
        <dd>
          <span className={`status-dot${processing ? ' is-busy' : ''}`} aria-hidden="true" />
          {processing ? 'Processing' : idleText}
        </dd>
      </div>
      <div className="status-item">
        <dt>{model === undefined ? 'Queue' : 'Model'}</dt>
        <dd>{model === undefined ? queue : model || '—'}</dd>
      </div>
      <div className="status-item">
        <dt>ETA</dt>
        <dd>{eta}</dd>
      </div>
    </dl>
  );
}

/**
 * When the work in the queue is done. GET /api/queues/ gives the ETA of a job sent now (the
 * backlog plus one more job): once our own jobs are in the backlog, that extra job is not ours.
 */
export function workEta(queue: ToolQueue | undefined, inFlight: number): number | undefined {
  if (!queue) return undefined;
  return inFlight > 0 ? Math.max(0, queue.eta_seconds - queue.avg_seconds) : queue.eta_seconds;
}

/**
 * The Queue figure. While one of our jobs of the tool waits behind others: its queue position
 * (jobs ahead of it in the queue, all organisations alike), the figure its job line shows as
 * "position N". Otherwise our jobs in flight, as the spec shows it (1 while processing, 0 idle).
 */
export function queueFigure(queue: ToolQueue | undefined, busy: boolean): number {
  if (queue?.queue_position) return queue.queue_position;
  const inFlight = queue ? queue.queued + queue.running : 0;
  return Math.max(inFlight, busy ? 1 : 0);
}

/**
 * The status bar fed by GET /api/queues/: this organisation's queued and running jobs of the
 * tool and when they will be done; a dash when idle. `busy` lets a page show Processing from
 * the moment it submits, before the queue figures catch up.
 */
export function ToolStatusBar({ tool, busy = false }: { tool: string; busy?: boolean }) {
  const { queue } = useToolQueue(tool);
  const inFlight = queue ? queue.queued + queue.running : 0;
  const processing = busy || inFlight > 0;
  return <StatusBar processing={processing} queue={queueFigure(queue, busy)} eta={processing ? formatEta(workEta(queue, inFlight)) : '—'} />;
}
