/** Editorial Product canvas: pure geometry and limits (spec part 2, §3, §5, §9). */

export const MAX_IMAGES = 10;
export const ROTATE_STEP = 15;
export const ZOOM_STEP = 0.1;
export const DISPLAY_LIMIT = 600;
export const HANDLE_SIZE = 10;
export const ROTATION_HANDLE_OFFSET = 30;
export const HIT_TOLERANCE = 10;

export type AspectRatio = { label: string; value: string; width: number; height: number };

export const ASPECT_RATIOS: AspectRatio[] = [
  { label: '16:9', value: '16:9', width: 1920, height: 1080 },
  { label: '4:3', value: '4:3', width: 1600, height: 1200 },
  { label: '1:1', value: '1:1', width: 1200, height: 1200 },
  { label: '9:16', value: '9:16', width: 1080, height: 1920 },
  { label: '3:4', value: '3:4', width: 1200, height: 1600 },
];
export const DEFAULT_RATIO = '1:1';

export type CanvasImage = {
  id: string;
  dataUrl: string;
  /** Centre, in canvas pixels. */
  x: number;
  y: number;
  /** Natural size. */
  width: number;
  height: number;
  scale: number;
  /** Degrees. */
  rotation: number;
};

export const LIMIT_REACHED = 'Upload limit: Maximum 10 images allowed on canvas';
export const onlyMore = (n: number) => `You can only upload ${n} more image(s). Maximum is 10 images.`;

/** How many of `incoming` files fit, and the message when they do not all fit. */
export function uploadAllowance(current: number, incoming: number): { accept: number; message: string | null } {
  const room = Math.max(0, MAX_IMAGES - current);
  if (room === 0) return { accept: 0, message: LIMIT_REACHED };
  if (incoming > room) return { accept: 0, message: onlyMore(room) };
  return { accept: incoming, message: null };
}

const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));
const round2 = (value: number) => Math.round(value * 100) / 100;

/** Dragging a corner: 0.1 to 5. */
export const clampDragScale = (scale: number) => clamp(scale, 0.1, 5);
/** The step buttons: 0.1 to 3. */
export const stepScale = (scale: number, delta: number) => round2(clamp(scale + delta, 0.1, 3));

/** 0.3 times the factor that fits the image in the canvas, capped at 1. */
export function initialScale(width: number, height: number, canvasWidth: number, canvasHeight: number): number {
  const fit = Math.min(canvasWidth / width, canvasHeight / height);
  return Math.min(1, 0.3 * fit);
}

/** Canvas display size: the longer side at most 600 px. */
export function displaySize(ratio: AspectRatio): { width: number; height: number } {
  const factor = Math.min(1, DISPLAY_LIMIT / Math.max(ratio.width, ratio.height));
  return { width: Math.round(ratio.width * factor), height: Math.round(ratio.height * factor) };
}

/** A point in the image's own frame (origin at its centre, unrotated). */
export function toLocal(image: CanvasImage, px: number, py: number): { x: number; y: number } {
  const angle = (-image.rotation * Math.PI) / 180;
  const dx = px - image.x;
  const dy = py - image.y;
  return { x: dx * Math.cos(angle) - dy * Math.sin(angle), y: dx * Math.sin(angle) + dy * Math.cos(angle) };
}

export const halfSize = (image: CanvasImage) => ({ w: (image.width * image.scale) / 2, h: (image.height * image.scale) / 2 });

export function contains(image: CanvasImage, px: number, py: number, tolerance = 0): boolean {
  const local = toLocal(image, px, py);
  const { w, h } = halfSize(image);
  return Math.abs(local.x) <= w + tolerance && Math.abs(local.y) <= h + tolerance;
}

/** The topmost image under the point. */
export function hitImage(images: CanvasImage[], px: number, py: number): CanvasImage | null {
  for (let index = images.length - 1; index >= 0; index -= 1) {
    if (contains(images[index], px, py)) return images[index];
  }
  return null;
}

export type Handle = 'nw' | 'ne' | 'sw' | 'se' | 'rotate';

/** Which handle of the selected image is under the point; `unit` = canvas pixels per screen pixel. */
export function hitHandle(image: CanvasImage, px: number, py: number, unit = 1): Handle | null {
  const local = toLocal(image, px, py);
  const { w, h } = halfSize(image);
  const tolerance = HIT_TOLERANCE * unit;
  const near = (x: number, y: number) => Math.abs(local.x - x) <= tolerance && Math.abs(local.y - y) <= tolerance;
  if (near(0, -h - ROTATION_HANDLE_OFFSET * unit)) return 'rotate';
  if (near(-w, -h)) return 'nw';
  if (near(w, -h)) return 'ne';
  if (near(-w, h)) return 'sw';
  if (near(w, h)) return 'se';
  return null;
}

/** Scale that puts the dragged corner under the pointer. */
export function scaleFromCorner(image: CanvasImage, px: number, py: number): number {
  const local = toLocal(image, px, py);
  const sx = Math.abs(local.x) / (image.width / 2);
  const sy = Math.abs(local.y) / (image.height / 2);
  return round2(clampDragScale(Math.max(sx, sy)));
}

/** Angle (degrees) that points the top handle at the pointer. */
export function rotationToward(image: CanvasImage, px: number, py: number): number {
  const degrees = (Math.atan2(py - image.y, px - image.x) * 180) / Math.PI + 90;
  return Math.round(((degrees % 360) + 360) % 360);
}

export const rotateBy = (rotation: number, delta: number) => (((rotation + delta) % 360) + 360) % 360;
