import { EngineLabel, engineLabelText } from '@/components/tool/engine-label';
import { ProgressBar } from '@/components/ui/progress-bar';
import { formatEta } from '@/lib/format';
import { isVideoUrl } from '@/lib/image-url';
import { retryingText } from '@/lib/jobs';
import type { Job, JobOutput } from '@/types/api';

/** The job's progress with its queue position and ETA, when it has them. */
export function JobProgress({ progress, job, label = 'Progress' }: { progress: number; job?: Job; label?: string }) {
  const details: string[] = [];
  if (job?.status === 'queued') details.push(job.queue_position ? `Queued · position ${job.queue_position}` : 'Queued');
  if (job?.status === 'running') details.push('Running');
  const retrying = job ? retryingText(job) : null;
  if (retrying) details.push(retrying);
  if (typeof job?.eta_seconds === 'number') details.push(`ETA ${formatEta(job.eta_seconds)}`);
  return (
    <div className="job-progress">
      <ProgressBar value={progress} label={label} />
      {details.length ? <p className="small muted job-progress-details">{details.join(' · ')}</p> : null}
    </div>
  );
}

export const isVideoOutput = (output: JobOutput) => output.content_type.startsWith('video/') || isVideoUrl(output.url) || isVideoUrl(output.filename);

/** A job's first output, shown as a video (mp4, webm) or an image, from its same-origin URL. */
export function OutputMedia({ output, alt }: { output: JobOutput; alt: string }) {
  return isVideoOutput(output) ? (
    <video className="result-media" src={output.url} controls playsInline aria-label={alt} />
  ) : (
    <img className="result-media" src={output.url} alt={alt} />
  );
}

export function DownloadLink({ output, label }: { output: JobOutput; label: string }) {
  return (
    <a className="secondary-button" href={output.url} download={output.filename}>
      {label}
    </a>
  );
}

type DirectResultProps = {
  className: string;
  /** The direct job's state (useDirectJob). */
  direct: { phase: string; output?: JobOutput; job?: Job };
  alt: string;
  downloadLabel: string;
  /** Start New's label; it shows under the result, or alone after a failure. */
  newLabel: string;
  onStartNew: () => void;
  /** Said before there is a result. */
  placeholder: string;
};

/** Which engine made a result, on its own line under the output (nothing for a classical tool). */
export function ResultEngine({ job }: { job?: Pick<Job, 'engine' | 'tier'> | null }) {
  return engineLabelText(job) ? (
    <p className="result-engine">
      <EngineLabel job={job} />
    </p>
  ) : null;
}

/** A direct tool's Result: the output with Download and Start New, or what it waits for. */
export function DirectResult({ className, direct, alt, downloadLabel, newLabel, onStartNew, placeholder }: DirectResultProps) {
  const startNew = (
    <button type="button" className="secondary-button" onClick={onStartNew}>
      {newLabel}
    </button>
  );
  return (
    <section className={className} aria-label="Result">
      <h2>Result</h2>
      {direct.output ? (
        <>
          <OutputMedia output={direct.output} alt={alt} />
          <ResultEngine job={direct.job} />
          <div className="result-actions">
            <DownloadLink output={direct.output} label={downloadLabel} />
            {startNew}
          </div>
        </>
      ) : (
        <p className="muted result-placeholder">{direct.phase === 'running' ? 'Working on it…' : placeholder}</p>
      )}
      {direct.phase === 'failed' ? startNew : null}
    </section>
  );
}
