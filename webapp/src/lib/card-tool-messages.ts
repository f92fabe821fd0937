import type { ToastInput } from '@/components/ui/toast';
import { ApiError } from '@/lib/api-client';

/** Toasts of the card pages (spec part 1, §8; part 2, §8 for Earfit). */
export const NO_VALID_CARDS = 'No Valid Cards';

export const urlsRetrievedToast = (created: number, fetched: number): ToastInput => ({
  title: '✅ URLs Retrieved',
  description: `Fetched ${fetched} URLs and created ${created} cards`,
});

export const urlsFailedToast = (): ToastInput => ({
  title: '❌ Failed to Fetch URLs',
  description: 'Could not retrieve URLs from backend',
});

/** Non-OK: 'HTTP error! status: {code}'; no answer at all: the fallback text. */
export const generationFailedToast =
  (fallback = 'An error occurred while generating') =>
  (error: unknown): ToastInput => ({
    title: '❌ Generation Failed',
    description: error instanceof ApiError ? `HTTP error! status: ${error.status}` : fallback,
  });

export const noValidCardsToast = (description: string): ToastInput => ({
  title: NO_VALID_CARDS,
  description,
  variant: 'destructive',
});

/** Card tools: about 90 seconds per image (spec part 1, §9). */
export const CARD_TOOL_OVERLAY_MESSAGE = 'This usually takes about 90 seconds.';
