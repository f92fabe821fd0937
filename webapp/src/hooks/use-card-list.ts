import { useCallback, useState } from 'react';

import { useToast } from '@/components/ui/toast';
import {
  CARD_LIMITS,
  type ListLimits,
  type ListResult,
  addItem,
  duplicateItem,
  newItemId,
  removeItem,
} from '@/lib/limited-list';

type WithId = { id: string };

/**
 * A bounded list of cards (or of a card's changes, with CHANGE_LIMITS). Going past a limit
 * leaves the list unchanged and shows the spec's toast.
 */
export function useLimitedList<T extends WithId>(
  makeBlank: () => Omit<T, 'id'>,
  limits: ListLimits = CARD_LIMITS,
  /** The cards a fresh page starts with (the spec's defaults); one blank card when absent. */
  initial?: Omit<T, 'id'>[],
) {
  const { toast } = useToast();
  const blank = useCallback(() => ({ ...makeBlank(), id: newItemId() }) as T, [makeBlank]);
  const [items, setItems] = useState<T[]>(() =>
    initial?.length ? initial.map((value) => ({ ...value, id: newItemId() }) as T) : [blank()],
  );

  const apply = useCallback(
    (result: ListResult<T>) => {
      if (result.violation) toast({ ...result.violation, variant: 'destructive' });
      else setItems(result.items);
    },
    [toast],
  );

  return {
    items,
    count: items.length,
    limits,
    add: () => apply(addItem(items, blank(), limits)),
    duplicate: (id: string) => apply(duplicateItem(items, id, limits)),
    remove: (id: string) => apply(removeItem(items, id, limits)),
    update: (id: string, patch: Partial<Omit<T, 'id'>>) =>
      setItems((current) => current.map((item) => (item.id === id ? { ...item, ...patch } : item))),
    /** Start-new: back to one blank card. */
    reset: () => setItems([blank()]),
    /** Get URLs: one card per value, capped at the maximum, never fewer than the minimum. */
    replaceAll: (values: Omit<T, 'id'>[]) => {
      const next = values.slice(0, limits.max).map((value) => ({ ...value, id: newItemId() }) as T);
      setItems(next.length >= limits.min ? next : [blank()]);
    },
  };
}

/** For lists held inside another item (a card's changes): applies a result or shows its toast. */
export function useApplyLimited() {
  const { toast } = useToast();
  return useCallback(
    <T,>(result: ListResult<T>, onItems: (items: T[]) => void) => {
      if (result.violation) toast({ ...result.violation, variant: 'destructive' });
      else onItems(result.items);
    },
    [toast],
  );
}
