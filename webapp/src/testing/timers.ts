import { act } from '@testing-library/react';

/** Advance fake timers by `ms`, then let answered fetches settle into queries and renders. */
export async function tick(ms: number) {
  await act(async () => {
    await jest.advanceTimersByTimeAsync(ms);
  });
  for (let i = 0; i < 5; i += 1) {
    await act(async () => {
      await jest.advanceTimersByTimeAsync(0);
    });
  }
}
