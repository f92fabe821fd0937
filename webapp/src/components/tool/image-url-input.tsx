import { useEffect, useId, useState } from 'react';

import { isAcceptedCardImageUrl, shouldShowPreview } from '@/lib/image-url';

type ImageState = 'loading' | 'loaded' | 'error';

/** The preview of one URL: loading, then loaded or 'Failed to load'. */
export function ImagePreview({ url, alt, onStateChange }: { url: string; alt: string; onStateChange?: (state: ImageState) => void }) {
  const [state, setState] = useState<ImageState>('loading');
  useEffect(() => {
    setState('loading');
    onStateChange?.('loading');
    // onStateChange is a notification only; a new callback identity must not restart loading.
  }, [url]);
  const settle = (next: ImageState) => {
    setState(next);
    onStateChange?.(next);
  };

  return (
    <div className="image-preview" data-state={state} aria-busy={state === 'loading'}>
      {state === 'loading' ? <span className="muted small">Loading preview…</span> : null}
      {state === 'error' ? (
        <span className="image-error" role="alert">
          Failed to load
        </span>
      ) : (
        <img src={url} alt={alt} onLoad={() => settle('loaded')} onError={() => settle('error')} hidden={state !== 'loaded'} />
      )}
    </div>
  );
}

type ImageUrlInputProps = {
  label: string;
  value: string;
  onChange: (value: string) => void;
  /**
   * 'preview' (direct tools): preview when the text has an image extension or 'http'.
   * 'card' (card pages): only a URL whose path ends in an image extension (svg too) is accepted.
   */
  mode?: 'preview' | 'card';
  placeholder?: string;
  disabled?: boolean;
  onImageStateChange?: (state: ImageState) => void;
};

export function ImageUrlInput({
  label,
  value,
  onChange,
  mode = 'preview',
  placeholder = 'https://…',
  disabled = false,
  onImageStateChange,
}: ImageUrlInputProps) {
  const id = useId();
  const hintId = `${id}-hint`;
  const trimmed = value.trim();
  const accepted = mode === 'card' ? isAcceptedCardImageUrl(trimmed) : shouldShowPreview(trimmed);
  const rejected = mode === 'card' && trimmed !== '' && !accepted;

  return (
    <div className="field image-url-input">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="url"
        inputMode="url"
        value={value}
        placeholder={placeholder}
        disabled={disabled}
        aria-invalid={rejected || undefined}
        aria-describedby={rejected ? hintId : undefined}
        onChange={(event) => onChange(event.target.value)}
      />
      {rejected ? (
        <p id={hintId} className="field-hint field-error">
          Use a link to an image file (jpg, jpeg, png, gif, bmp, webp or svg).
        </p>
      ) : null}
      {accepted ? <ImagePreview key={trimmed} url={trimmed} alt={`${label} preview`} onStateChange={onImageStateChange} /> : null}
    </div>
  );
}
