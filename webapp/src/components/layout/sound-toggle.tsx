import { useSoundEnabled } from '@/hooks/use-sound-enabled';

export function SoundToggle() {
  const [enabled, setEnabled] = useSoundEnabled();
  return (
    <button
      type="button"
      className="nav-button sound-toggle"
      aria-pressed={enabled}
      aria-label={enabled ? 'Sound on' : 'Sound off'}
      title={enabled ? 'Mute interface sounds' : 'Enable interface sounds'}
      onClick={() => setEnabled(!enabled)}
    >
      {/* An SVG, not an emoji: machines without a colour-emoji font show a blank box. */}
      <svg aria-hidden="true" width="18" height="18" viewBox="0 0 24 24" fill="none"
        stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round">
        <path d="M11 5 6 9H2v6h4l5 4z" fill="currentColor" />
        {enabled ? (
          <path d="M15.5 8.5a5 5 0 0 1 0 7M19 5a10 10 0 0 1 0 14" />
        ) : (
          <path d="m22 9-6 6M16 9l6 6" />
        )}
      </svg>
    </button>
  );
}
