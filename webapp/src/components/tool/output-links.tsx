import type { JobOutput } from '@/types/api';

/** A job's output files as links (a dash when it has none), in the job log and the history. */
export function OutputLinks({ outputs }: { outputs: JobOutput[] }) {
  if (!outputs.length) return <span className="muted">—</span>;
  return (
    <ul className="jobs-outputs">
      {outputs.map((output) => (
        <li key={output.index}>
          <a href={output.url} target="_blank" rel="noreferrer">
            {output.filename}
          </a>
        </li>
      ))}
    </ul>
  );
}
