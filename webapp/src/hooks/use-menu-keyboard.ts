import { type KeyboardEvent, type RefObject, useEffect } from 'react';

const ITEMS = '[role="menuitem"]';

/**
 * Menu keyboard pattern: on open the first item takes focus; Arrow keys, Home and End move
 * between items. Escape is handled by useDismiss; `restoreFocus` gives focus back to the trigger.
 */
export function useMenuKeyboard(menuRef: RefObject<HTMLElement>, open: boolean) {
  useEffect(() => {
    if (open) menuRef.current?.querySelector<HTMLElement>(ITEMS)?.focus();
  }, [menuRef, open]);

  return (event: KeyboardEvent<HTMLElement>) => {
    const items = Array.from(menuRef.current?.querySelectorAll<HTMLElement>(ITEMS) ?? []);
    if (items.length === 0) return;
    const index = items.indexOf(document.activeElement as HTMLElement);
    let next: number | null = null;
    if (event.key === 'ArrowDown') next = (index + 1) % items.length;
    else if (event.key === 'ArrowUp') next = (index - 1 + items.length) % items.length;
    else if (event.key === 'Home') next = 0;
    else if (event.key === 'End') next = items.length - 1;
    if (next === null) return;
    event.preventDefault();
    items[next].focus();
  };
}
