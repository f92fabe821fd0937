import { useState } from 'react';

import { Dialog } from '@/components/ui/dialog';
import { isVideoUrl } from '@/lib/image-url';
import type { ToolExample } from '@/types/api';

export type Example = ToolExample;

function Media({ example, thumbnail }: { example: Example; thumbnail: boolean }) {
  if (isVideoUrl(example.src)) {
    return thumbnail ? (
      <video src={example.src} muted playsInline preload="metadata" aria-label={example.alt} />
    ) : (
      <video src={example.src} controls autoPlay muted playsInline aria-label={example.alt} />
    );
  }
  return <img src={example.src} alt={example.alt} loading={thumbnail ? 'lazy' : undefined} />;
}

/** Full-size view; Escape, the close button and a click on the backdrop close it. */
export function Lightbox({ example, onClose }: { example: Example; onClose: () => void }) {
  return (
    <Dialog title={example.alt} hideTitle onClose={onClose} className="lightbox">
      <button type="button" className="lightbox-close" aria-label="Close" onClick={onClose}>
        ×
      </button>
      <Media example={example} thumbnail={false} />
    </Dialog>
  );
}

/** Examples gallery (three fixed assets per tool, four for Flats Ecommerce). */
export function ExamplesGallery({ examples, title = 'Examples' }: { examples: Example[]; title?: string }) {
  const [open, setOpen] = useState<Example | null>(null);
  return (
    <section className="examples-gallery" aria-label={title}>
      <h2>{title}</h2>
      <ul className="examples-grid">
        {examples.map((example) => (
          <li key={example.src}>
            <button type="button" className="example-thumb" aria-label={`Expand ${example.alt}`} onClick={() => setOpen(example)}>
              <Media example={example} thumbnail />
            </button>
          </li>
        ))}
      </ul>
      {open ? <Lightbox example={open} onClose={() => setOpen(null)} /> : null}
    </section>
  );
}
