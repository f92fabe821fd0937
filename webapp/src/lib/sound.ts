export const SOUND_STORAGE_KEY = 'soundEnabled';

type AudioContextCtor = new () => AudioContext;

let context: AudioContext | null = null;

function getAudioContext(): AudioContext | null {
  if (context) return context;
  const Ctor: AudioContextCtor | undefined =
    window.AudioContext ?? (window as unknown as { webkitAudioContext?: AudioContextCtor }).webkitAudioContext;
  if (!Ctor) return null; // jsdom and very old browsers
  context = new Ctor();
  return context;
}

/** A short falling square-wave buzz signalling "not available". */
export function playDenialTone(): void {
  try {
    const ctx = getAudioContext();
    if (!ctx) return;
    if (ctx.state === 'suspended') void ctx.resume();
    const now = ctx.currentTime;
    const oscillator = ctx.createOscillator();
    const gain = ctx.createGain();
    oscillator.type = 'square';
    oscillator.frequency.setValueAtTime(220, now);
    oscillator.frequency.exponentialRampToValueAtTime(110, now + 0.18);
    gain.gain.setValueAtTime(0.08, now);
    gain.gain.exponentialRampToValueAtTime(0.0001, now + 0.2);
    oscillator.connect(gain);
    gain.connect(ctx.destination);
    oscillator.start(now);
    oscillator.stop(now + 0.2);
  } catch {
    // Sound is decoration; never let it break a click handler.
  }
}

/** Test hook: forget the cached AudioContext. */
export function resetAudioContextForTests(): void {
  context = null;
}
