/** Bounded lists of the card pages (spec part 1, §5 and §9): cards 1-20, changes per card 1-10. */

export type ListLimits = {
  min: number;
  max: number;
  maxMessage: string;
  minMessage: string;
};

export const MAX_REACHED_TITLE = 'Maximum Reached';
export const CANNOT_REMOVE_TITLE = 'Cannot Remove';

export const CARD_LIMITS: ListLimits = {
  min: 1,
  max: 20,
  maxMessage: 'You can only have up to 20 cards',
  minMessage: 'You must have at least 1 card',
};

export const CHANGE_LIMITS: ListLimits = {
  min: 1,
  max: 10,
  maxMessage: 'You can only have up to 10 changes per card',
  minMessage: 'You must have at least 1 change per card',
};

export type LimitViolation = { title: string; description: string };
export type ListResult<T> = { items: T[]; violation?: undefined } | { items?: undefined; violation: LimitViolation };

type WithId = { id: string };

let sequence = 0;
/** Ids for client-side list items (not sent to the server). */
export function newItemId(): string {
  sequence += 1;
  return `item-${Date.now().toString(36)}-${sequence}`;
}

export function addItem<T>(items: T[], item: T, limits: ListLimits): ListResult<T> {
  if (items.length >= limits.max) return { violation: { title: MAX_REACHED_TITLE, description: limits.maxMessage } };
  return { items: [...items, item] };
}

/** Inserts a copy (with a fresh id) right after the original. */
export function duplicateItem<T extends WithId>(items: T[], id: string, limits: ListLimits): ListResult<T> {
  const index = items.findIndex((item) => item.id === id);
  if (index < 0) return { items };
  if (items.length >= limits.max) return { violation: { title: MAX_REACHED_TITLE, description: limits.maxMessage } };
  const copy = { ...structuredCloneSafe(items[index]), id: newItemId() };
  return { items: [...items.slice(0, index + 1), copy, ...items.slice(index + 1)] };
}

export function removeItem<T extends WithId>(items: T[], id: string, limits: ListLimits): ListResult<T> {
  if (items.length <= limits.min) return { violation: { title: CANNOT_REMOVE_TITLE, description: limits.minMessage } };
  return { items: items.filter((item) => item.id !== id) };
}

// Nested arrays (a card's changes) must not be shared between the original and its copy.
function structuredCloneSafe<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
