import { type MouseEvent, type ReactNode, useId, useRef } from 'react';

import { useFocusTrap } from '@/hooks/use-focus-trap';

type DialogProps = {
  title: string;
  /** Hide the title visually (still the dialog's accessible name). */
  hideTitle?: boolean;
  children: ReactNode;
  /** When given: Escape and a click on the backdrop call it. */
  onClose?: () => void;
  className?: string;
  role?: 'dialog' | 'alertdialog';
  busy?: boolean;
};

/** Full-screen modal: labelled, focus moved in and kept there, given back on close. */
export function Dialog({ title, hideTitle = false, children, onClose, className = '', role = 'dialog', busy }: DialogProps) {
  const titleId = useId();
  const panelRef = useRef<HTMLDivElement>(null);
  useFocusTrap(panelRef, true, onClose);
  const onBackdrop = (event: MouseEvent<HTMLDivElement>) => {
    if (onClose && event.target === event.currentTarget) onClose();
  };

  return (
    <div className="overlay-backdrop" data-testid="overlay-backdrop" onClick={onBackdrop}>
      <div
        ref={panelRef}
        className={`overlay-panel ${className}`}
        role={role}
        aria-modal="true"
        aria-labelledby={titleId}
        aria-busy={busy}
        tabIndex={-1}
      >
        <h2 id={titleId} className={hideTitle ? 'visually-hidden' : 'overlay-title'}>
          {title}
        </h2>
        {children}
      </div>
    </div>
  );
}
