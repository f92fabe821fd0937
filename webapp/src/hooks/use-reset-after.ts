import { useEffect } from 'react';

/**
 * The spec's timed resets (Spinview, Flats, Remodel): while `due` holds, `reset` runs once
 * `ms` later; it is called off when `due` stops holding first.
 */
export function useResetAfter(due: boolean, reset: () => void, ms: number) {
  useEffect(() => {
    if (!due) return undefined;
    const timer = window.setTimeout(reset, ms);
    return () => window.clearTimeout(timer);
    // `reset` is a fresh closure each render; the timer follows `due` alone
  }, [due, ms]);
}
