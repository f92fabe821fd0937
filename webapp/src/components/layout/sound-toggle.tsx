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
      <span aria-hidden="true">{enabled ? '🔊' : '🔇'}</span>
    </button>
  );
}
