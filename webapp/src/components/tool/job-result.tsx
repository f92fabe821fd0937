import { ProgressBar } from '@/components/ui/progress-bar';
import { formatEta } from '@/lib/format';
import { isVideoUrl } from '@/lib/image-url';
import type { Job, JobOutput } from '@/types/api';

/** The job's progress with its queue position and ETA, when it has them. */
export function JobProgress({ progress, job, label = 'Progress' }: { progress: number; job?: Job; label?: string }) {
  const details: string[] = [];
  if (job?.status === 'queued') details.push(job.queue_position ? `Queued · position ${job.queue_position}` : 'Queued');
  if (job?.status === 'running') details.push('Running');
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
