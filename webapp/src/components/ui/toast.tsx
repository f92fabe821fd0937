import { type ReactNode, createContext, useCallback, useContext, useEffect, useMemo, useRef, useState } from 'react';

export type ToastInput = {
  title: string;
  description?: string;
  /** Errors: announced assertively (role=alert) and drawn in the error colour. */
  variant?: 'default' | 'destructive';
  /** How long it stays, in ms (TOAST_DURATION_MS unless the spec says otherwise). */
  duration?: number;
};

type ToastItem = ToastInput & { id: number };

type ToastContextValue = { toast: (input: ToastInput) => void; dismiss: (id: number) => void };

const ToastContext = createContext<ToastContextValue | null>(null);

export const TOAST_DURATION_MS = 5000;

function ToastView({ item, onDismiss }: { item: ToastItem; onDismiss: (id: number) => void }) {
  const destructive = item.variant === 'destructive';
  const [paused, setPaused] = useState(false);
  useEffect(() => {
    if (paused) return undefined;
    const timer = window.setTimeout(() => onDismiss(item.id), item.duration ?? TOAST_DURATION_MS);
    return () => window.clearTimeout(timer);
  }, [item.id, item.duration, onDismiss, paused]);

  return (
    <li
      className={`toast${destructive ? ' toast-destructive' : ''}`}
      role={destructive ? 'alert' : 'status'}
      aria-live={destructive ? 'assertive' : 'polite'}
      aria-atomic="true"
      onMouseEnter={() => setPaused(true)}
      onMouseLeave={() => setPaused(false)}
      onFocus={() => setPaused(true)}
      onBlur={() => setPaused(false)}
    >
      <div className="toast-body">
        <p className="toast-title">{item.title}</p>
        {item.description ? <p className="toast-description">{item.description}</p> : null}
      </div>
      <button type="button" className="toast-close" aria-label="Dismiss notification" onClick={() => onDismiss(item.id)}>
        ×
      </button>
    </li>
  );
}

/** Hosts the toasts of the whole app; tool pages call `useToast().toast({...})`. */
export function ToastProvider({ children }: { children: ReactNode }) {
  const [items, setItems] = useState<ToastItem[]>([]);
  const nextId = useRef(1);
  const dismiss = useCallback((id: number) => setItems((current) => current.filter((item) => item.id !== id)), []);
  const toast = useCallback((input: ToastInput) => {
    const id = nextId.current++;
    // Keep the stack short: older notices make way for new ones.
    setItems((current) => [...current.slice(-3), { ...input, id }]);
  }, []);
  const value = useMemo(() => ({ toast, dismiss }), [toast, dismiss]);

  return (
    <ToastContext.Provider value={value}>
      {children}
      <section className="toast-region" aria-label="Notifications">
        <ol className="toast-list">
          {items.map((item) => (
            <ToastView key={item.id} item={item} onDismiss={dismiss} />
          ))}
        </ol>
      </section>
    </ToastContext.Provider>
  );
}

export function useToast(): ToastContextValue {
  const value = useContext(ToastContext);
  if (!value) throw new Error('useToast must be used within a ToastProvider');
  return value;
}
