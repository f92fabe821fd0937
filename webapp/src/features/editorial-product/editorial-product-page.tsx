import { type ChangeEvent, type PointerEvent, useCallback, useEffect, useRef, useState } from 'react';

import { JobEngineLabel, answerJobId } from '@/components/tool/engine-label';
import { Lightbox, type Example } from '@/components/tool/examples-gallery';
import { StatusBar } from '@/components/tool/status-bar';
import { JobLog } from '@/components/tool/job-log';
import { ToolPage } from '@/components/tool/tool-page';
import { Options } from '@/components/ui/options';
import { ProgressBar } from '@/components/ui/progress-bar';
import { useToast } from '@/components/ui/toast';
import { ApiError } from '@/lib/api-client';
import { downloadFile, normaliseResults, readFileDataUrl, stripDataPrefix, usePhotoPresets } from '@/lib/editorial';
import {
  ASPECT_RATIOS,
  type CanvasImage,
  DEFAULT_RATIO,
  HANDLE_SIZE,
  type Handle,
  MAX_IMAGES,
  ROTATE_STEP,
  ROTATION_HANDLE_OFFSET,
  ZOOM_STEP,
  clampDragScale,
  displaySize,
  halfSize,
  hitHandle,
  hitImage,
  initialScale,
  rotateBy,
  rotationToward,
  scaleFromCorner,
  stepScale,
  uploadAllowance,
} from '@/features/editorial-product/canvas-geometry';
import { usePost } from '@/lib/submit';
import '@/components/tool/studio.css';

export const ESTIMATED_TIME = 'Estimated time: ~30 seconds';
const PROGRESS_TICK_MS = 500;

type Drag = { mode: 'move' | 'resize' | 'rotate'; id: string; dx: number; dy: number };

function loadBitmap(src: string): Promise<HTMLImageElement> {
  return new Promise((resolve, reject) => {
    const image = new Image();
    image.onload = () => resolve(image);
    image.onerror = () => reject(new Error('Could not read the image'));
    image.src = src;
  });
}

/** Draws the layout; handles only on screen, never in the export. */
function draw(
  ctx: CanvasRenderingContext2D,
  size: { width: number; height: number },
  images: CanvasImage[],
  bitmaps: Map<string, HTMLImageElement>,
  selected: string | null,
  unit: number,
) {
  ctx.save();
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, size.width, size.height);
  for (const image of images) {
    const bitmap = bitmaps.get(image.id);
    if (!bitmap) continue;
    const { w, h } = halfSize(image);
    ctx.save();
    ctx.translate(image.x, image.y);
    ctx.rotate((image.rotation * Math.PI) / 180);
    ctx.drawImage(bitmap, -w, -h, w * 2, h * 2);
    if (image.id === selected) {
      ctx.strokeStyle = '#2563eb';
      ctx.lineWidth = 2 * unit;
      ctx.strokeRect(-w, -h, w * 2, h * 2);
      const s = HANDLE_SIZE * unit;
      ctx.fillStyle = '#ffffff';
      for (const [cx, cy] of [[-w, -h], [w, -h], [-w, h], [w, h]]) {
        ctx.fillRect(cx - s / 2, cy - s / 2, s, s);
        ctx.strokeRect(cx - s / 2, cy - s / 2, s, s);
      }
      ctx.beginPath();
      ctx.moveTo(0, -h);
      ctx.lineTo(0, -h - ROTATION_HANDLE_OFFSET * unit);
      ctx.stroke();
      ctx.beginPath();
      ctx.arc(0, -h - ROTATION_HANDLE_OFFSET * unit, s / 2 + unit, 0, Math.PI * 2);
      ctx.fill();
      ctx.stroke();
    }
    ctx.restore();
  }
  ctx.restore();
}

export function EditorialProductPage() {
  const { toast } = useToast();
  const presets = usePhotoPresets();
  const [ratioValue, setRatioValue] = useState(DEFAULT_RATIO);
  const ratio = ASPECT_RATIOS.find((item) => item.value === ratioValue) ?? ASPECT_RATIOS[2];
  const display = displaySize(ratio);
  const [images, setImages] = useState<CanvasImage[]>([]);
  const [selected, setSelected] = useState<string | null>(null);
  const [description, setDescription] = useState('');
  const [preset, setPreset] = useState('');
  const submit = usePost<unknown>('/api/editorial-product/');
  // Stays on for half a second after the answer, so the bar is seen reaching 100.
  const [processing, setProcessing] = useState(false);
  const [progress, setProgress] = useState(0);
  const [results, setResults] = useState<string[]>([]);
  const [resultJob, setResultJob] = useState<string | null>(null);
  const [expanded, setExpanded] = useState<Example | null>(null);
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const fileRef = useRef<HTMLInputElement>(null);
  const bitmaps = useRef(new Map<string, HTMLImageElement>());
  const drag = useRef<Drag | null>(null);
  const nextId = useRef(1);
  const imagesRef = useRef(images);
  imagesRef.current = images;
  const unit = ratio.width / display.width;
  const current = images.find((image) => image.id === selected) ?? null;

  useEffect(() => {
    const ctx = canvasRef.current?.getContext('2d');
    if (ctx) draw(ctx, ratio, images, bitmaps.current, selected, unit);
  }, [images, selected, ratio, unit]);

  const addDataUrls = useCallback(
    async (dataUrls: string[]) => {
      const added: CanvasImage[] = [];
      for (const dataUrl of dataUrls) {
        try {
          const bitmap = await loadBitmap(dataUrl);
          const id = `img-${nextId.current++}`;
          bitmaps.current.set(id, bitmap);
          const width = bitmap.naturalWidth || 1;
          const height = bitmap.naturalHeight || 1;
          const offset = ((imagesRef.current.length + added.length) % 5) * 40;
          added.push({ id, dataUrl, x: ratio.width / 2 + offset, y: ratio.height / 2 + offset, width, height, scale: initialScale(width, height, ratio.width, ratio.height), rotation: 0 });
        } catch {
          // an unreadable file is skipped
        }
      }
      if (added.length) {
        setImages((list) => [...list, ...added].slice(0, MAX_IMAGES));
        setSelected(added[added.length - 1].id);
      }
      return added.length;
    },
    [ratio],
  );

  /** Applies the 10-image limit; returns false (with the spec's toast) when nothing is added. */
  const admit = useCallback(
    (files: File[]): File[] => {
      const accepted = files.filter((file) => file.type.startsWith('image/'));
      if (!accepted.length) return [];
      const allowance = uploadAllowance(imagesRef.current.length, accepted.length);
      if (allowance.message) {
        toast({ title: 'Upload limit', description: allowance.message, variant: 'destructive' });
        return [];
      }
      return accepted;
    },
    [toast],
  );

  const onFiles = async (event: ChangeEvent<HTMLInputElement>) => {
    const files = admit(Array.from(event.target.files ?? []));
    event.target.value = '';
    if (!files.length) return;
    const count = await addDataUrls(await Promise.all(files.map(readFileDataUrl)));
    if (count) toast({ title: 'Images uploaded', description: `${count} image(s) added to canvas` });
  };

  useEffect(() => {
    const onPaste = (event: ClipboardEvent) => {
      const files = Array.from(event.clipboardData?.items ?? [])
        .filter((item) => item.kind === 'file' && item.type.startsWith('image/'))
        .map((item) => item.getAsFile())
        .filter((file): file is File => Boolean(file));
      if (!files.length) return;
      event.preventDefault();
      const admitted = admit(files);
      if (!admitted.length) return;
      void Promise.all(admitted.map(readFileDataUrl))
        .then(addDataUrls)
        .then((count) => {
          if (count) toast({ title: 'Image pasted', description: 'Image added to canvas' });
        });
    };
    window.addEventListener('paste', onPaste);
    return () => window.removeEventListener('paste', onPaste);
  }, [addDataUrls, admit, toast]);

  const update = (id: string, change: (image: CanvasImage) => Partial<CanvasImage>) =>
    setImages((list) => list.map((image) => (image.id === id ? { ...image, ...change(image) } : image)));

  const remove = (id: string) => {
    bitmaps.current.delete(id);
    setImages((list) => list.filter((image) => image.id !== id));
    setSelected(null);
  };

  const pointFrom = (event: PointerEvent<HTMLCanvasElement>) => {
    const rect = event.currentTarget.getBoundingClientRect();
    const sx = rect.width ? ratio.width / rect.width : unit;
    const sy = rect.height ? ratio.height / rect.height : unit;
    return { x: (event.clientX - rect.left) * sx, y: (event.clientY - rect.top) * sy };
  };

  const onPointerDown = (event: PointerEvent<HTMLCanvasElement>) => {
    const point = pointFrom(event);
    if (current) {
      const handle: Handle | null = hitHandle(current, point.x, point.y, unit);
      if (handle) {
        drag.current = { mode: handle === 'rotate' ? 'rotate' : 'resize', id: current.id, dx: 0, dy: 0 };
        event.currentTarget.setPointerCapture?.(event.pointerId);
        return;
      }
    }
    const hit = hitImage(images, point.x, point.y);
    setSelected(hit?.id ?? null);
    if (hit) {
      drag.current = { mode: 'move', id: hit.id, dx: point.x - hit.x, dy: point.y - hit.y };
      event.currentTarget.setPointerCapture?.(event.pointerId);
    }
  };

  const onPointerMove = (event: PointerEvent<HTMLCanvasElement>) => {
    const active = drag.current;
    if (!active) return;
    const point = pointFrom(event);
    if (active.mode === 'move') update(active.id, () => ({ x: point.x - active.dx, y: point.y - active.dy }));
    else if (active.mode === 'resize') update(active.id, (image) => ({ scale: clampDragScale(scaleFromCorner(image, point.x, point.y)) }));
    else update(active.id, (image) => ({ rotation: rotationToward(image, point.x, point.y) }));
  };

  const endDrag = () => {
    drag.current = null;
  };

  /** The layout as PNG at the ratio's pixel size, on white, without handles. */
  const exportCanvas = (): string => {
    const canvas = document.createElement('canvas');
    canvas.width = ratio.width;
    canvas.height = ratio.height;
    const ctx = canvas.getContext('2d');
    if (!ctx) throw new Error('Failed to process canvas');
    draw(ctx, ratio, images, bitmaps.current, null, 1);
    return stripDataPrefix(canvas.toDataURL('image/png'));
  };

  const generate = async () => {
    if (!images.length || processing) return;
    setProcessing(true);
    setProgress(0);
    setResults([]);
    const timer = window.setInterval(() => setProgress((value) => Math.min(90, value + Math.random() * 15)), PROGRESS_TICK_MS);
    try {
      const image = exportCanvas();
      const answer = await submit.mutateAsync({ image, prompt: description.trim(), ...(preset ? { preset } : {}) });
      const found = normaliseResults(answer && typeof answer === 'object' && !Array.isArray(answer) ? { result1: (answer as Record<string, unknown>).result1, result2: (answer as Record<string, unknown>).result2 } : null, 2);
      if (!found.length) throw new Error('Invalid response from server');
      window.clearInterval(timer);
      setProgress(100);
      setResults(found);
      setResultJob(answerJobId(answer));
      toast({ title: 'Success', description: 'Your editorial product images are ready' });
    } catch (error) {
      const message = error instanceof ApiError ? (error.status === 422 ? error.message : 'Failed to process canvas') : error instanceof Error ? error.message : '';
      toast({ title: 'Processing failed', description: message || 'Failed to process editorial product', variant: 'destructive' });
    } finally {
      window.clearInterval(timer);
      window.setTimeout(() => {
        setProcessing(false);
        setProgress(0);
      }, 500);
    }
  };

  const choosePreset = (title: string) => {
    setPreset(title);
    const sentence = presets.data?.find((item) => item.title === title)?.sentence;
    if (sentence) setDescription(sentence);
  };

  const downloadName = (n: number) => `editorial-product-${n}.png`;

  return (
    <ToolPage slug="editorial-product" statusBar={<StatusBar processing={processing} queue={processing ? 1 : 0} eta={processing ? '~30s' : '—'} />}>
      <div className="studio product-studio">
        <div className="product-counters" aria-label="Canvas counters">
          <span>
            Images {images.length}/{MAX_IMAGES}
          </span>
          <span>Ratio {ratio.label}</span>
        </div>
        <section className="studio-section" aria-label="Canvas">
          <div className="product-toolbar">
            <div className="field inline-field">
              <label htmlFor="product-ratio">Aspect Ratio</label>
              <select id="product-ratio" value={ratioValue} onChange={(event) => setRatioValue(event.target.value)}>
                <Options items={ASPECT_RATIOS} value={(item) => item.value} label={(item) => `${item.label} (${item.width}x${item.height})`} />
              </select>
            </div>
            <button type="button" className="primary-button" onClick={() => fileRef.current?.click()} disabled={images.length >= MAX_IMAGES}>
              Upload Images
            </button>
            <input ref={fileRef} type="file" accept="image/*" multiple hidden data-testid="canvas-files" onChange={(event) => void onFiles(event)} />
            <button
              type="button"
              className="secondary-button"
              onClick={() => {
                bitmaps.current.clear();
                setImages([]);
                setSelected(null);
              }}
              disabled={!images.length}
            >
              Clear
            </button>
          </div>
          <div className="product-canvas-wrap">
            <canvas
              ref={canvasRef}
              className="product-canvas"
              width={ratio.width}
              height={ratio.height}
              style={{ width: display.width, height: display.height }}
              tabIndex={0}
              aria-label={`Layout canvas ${ratio.label}; paste images with Ctrl+V`}
              onPointerDown={onPointerDown}
              onPointerMove={onPointerMove}
              onPointerUp={endDrag}
              onPointerCancel={endDrag}
              onKeyDown={(event) => {
                if ((event.key === 'Delete' || event.key === 'Backspace') && current) remove(current.id);
              }}
            />
            {!images.length ? <p className="canvas-hint muted">Upload or paste images, then drag to arrange them.</p> : null}
          </div>
          <div className="product-controls" aria-label="Selected image">
            {current ? (
              <>
                <p className="small">
                  {current.id} · scale {current.scale.toFixed(2)} · {current.rotation}° · position {Math.round(current.x)}, {Math.round(current.y)} · size{' '}
                  {Math.round(current.width * current.scale)}x{Math.round(current.height * current.scale)}
                </p>
                <button type="button" className="secondary-button" aria-label="Rotate left 15°" onClick={() => update(current.id, (image) => ({ rotation: rotateBy(image.rotation, -ROTATE_STEP) }))}>
                  ↺ 15°
                </button>
                <button type="button" className="secondary-button" aria-label="Rotate right 15°" onClick={() => update(current.id, (image) => ({ rotation: rotateBy(image.rotation, ROTATE_STEP) }))}>
                  ↻ 15°
                </button>
                <button type="button" className="secondary-button" aria-label="Zoom out" onClick={() => update(current.id, (image) => ({ scale: stepScale(image.scale, -ZOOM_STEP) }))}>
                  −
                </button>
                <button type="button" className="secondary-button" aria-label="Zoom in" onClick={() => update(current.id, (image) => ({ scale: stepScale(image.scale, ZOOM_STEP) }))}>
                  +
                </button>
                <button type="button" className="secondary-button danger" onClick={() => remove(current.id)}>
                  Delete
                </button>
              </>
            ) : (
              <p className="small muted">Select an image to move, resize from a corner, rotate from the top handle or delete it.</p>
            )}
          </div>
        </section>

        <section className="studio-section" aria-label="Scene description">
          <div className="field">
            <label htmlFor="product-preset">Photography Preset</label>
            <select id="product-preset" value={preset} onChange={(event) => choosePreset(event.target.value)}>
              <Options items={presets.data ?? []} value={(item) => item.title} blank="Choose a preset…" />
            </select>
          </div>
          <div className="field">
            <label htmlFor="product-description">Description</label>
            <textarea id="product-description" rows={4} value={description} placeholder="Describe the editorial scene for your products…" onChange={(event) => setDescription(event.target.value)} />
          </div>
          <div className="run-area">
            <button type="button" className="primary-button" onClick={() => void generate()} disabled={!images.length || processing}>
              {processing ? 'Generating...' : 'Generate Product'}
            </button>
            {processing ? <ProgressBar value={progress} label="Generation progress" /> : null}
            <p className="muted small">{ESTIMATED_TIME}</p>
          </div>
        </section>

        {results.length ? (
          <section className="studio-section" aria-label="Results">
            <h2>Results</h2>
            <ul className="result-grid">
              {results.map((src, index) => (
                <li key={index} className="result-card">
                  <button type="button" className="example-thumb" aria-label={`Expand result ${index + 1}`} onClick={() => setExpanded({ src, alt: `Result ${index + 1}` })}>
                    {/* Whole, at the canvas ratio it was made in: the gallery thumbnails' 3:4 crop would cut a 16:9 layout. */}
                    <img src={src} alt={`Result ${index + 1}`} style={{ aspectRatio: 'auto', objectFit: 'contain' }} />
                  </button>
                  <JobEngineLabel jobId={resultJob} />
                  <button type="button" className="secondary-button" onClick={() => downloadFile(src, downloadName(index + 1))}>
                    Download
                  </button>
                </li>
              ))}
            </ul>
            <button type="button" className="secondary-button" onClick={() => results.forEach((src, index) => downloadFile(src, downloadName(index + 1)))}>
              Download All
            </button>
          </section>
        ) : null}
      </div>
      <JobLog tool="editorial-product" />
      {expanded ? <Lightbox example={expanded} onClose={() => setExpanded(null)} /> : null}
    </ToolPage>
  );
}
