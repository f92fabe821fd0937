import { useCallback, useSyncExternalStore } from 'react';

import { SOUND_STORAGE_KEY, playDenialTone } from '@/lib/sound';

// Same-tab listeners; the 'storage' event only fires in other tabs.
const listeners = new Set<() => void>();

function readSoundEnabled(): boolean {
  try {
    return window.localStorage.getItem(SOUND_STORAGE_KEY) !== 'false';
  } catch {
    return true;
  }
}

function writeSoundEnabled(enabled: boolean): void {
  try {
    window.localStorage.setItem(SOUND_STORAGE_KEY, JSON.stringify(enabled));
  } catch {
    // Private mode or quota: keep working with the in-memory default.
  }
  listeners.forEach((listener) => listener());
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  const onStorage = (event: StorageEvent) => {
    if (event.key === SOUND_STORAGE_KEY) listener();
  };
  window.addEventListener('storage', onStorage);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('storage', onStorage);
  };
}

export function useSoundEnabled(): [boolean, (enabled: boolean) => void] {
  const enabled = useSyncExternalStore(subscribe, readSoundEnabled, () => true);
  return [enabled, writeSoundEnabled];
}

/** Click handler for locked or disabled entries: plays the denial tone and nothing else. */
export function useDenialSound(): (event?: { preventDefault: () => void }) => void {
  const [enabled] = useSoundEnabled();
  return useCallback(
    (event) => {
      event?.preventDefault();
      if (enabled) playDenialTone();
    },
    [enabled],
  );
}
