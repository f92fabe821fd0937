/** Drawn, not an emoji: machines without a colour-emoji font show a blank box. */
export function LockIcon() {
  return (
    <svg className="lock-icon" aria-hidden="true" width="12" height="12" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2.2" strokeLinecap="round">
      <rect x="4" y="11" width="16" height="10" rx="2" fill="currentColor" />
      <path d="M8 11V7a4 4 0 0 1 8 0v4" />
    </svg>
  );
}
