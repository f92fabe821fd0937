export function ProgressBar({ value, label = 'Progress' }: { value: number; label?: string }) {
  const clamped = Math.max(0, Math.min(100, Math.round(value)));
  return (
    <div className="progress" role="progressbar" aria-label={label} aria-valuemin={0} aria-valuemax={100} aria-valuenow={clamped}>
      <div className="progress-fill" style={{ width: `${clamped}%` }} />
      <span className="progress-text" aria-hidden="true">
        {clamped}%
      </span>
    </div>
  );
}
