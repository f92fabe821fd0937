import type { ReactNode } from 'react';

type OptionsProps<T> = {
  items: readonly T[];
  /** An item's value (also its key). */
  value: (item: T) => string;
  /** What the option shows; the value when absent. */
  label?: (item: T) => ReactNode;
  /** A first option with no value (a placeholder, or "All …"). */
  blank?: string;
};

/** The options of a select, one per item. */
export function Options<T>({ items, value, label = value, blank }: OptionsProps<T>) {
  return (
    <>
      {blank !== undefined ? <option value="">{blank}</option> : null}
      {items.map((item) => (
        <option key={value(item)} value={value(item)}>
          {label(item)}
        </option>
      ))}
    </>
  );
}
