import {
  type CanvasImage,
  LIMIT_REACHED,
  clampDragScale,
  displaySize,
  hitHandle,
  hitImage,
  initialScale,
  rotateBy,
  scaleFromCorner,
  stepScale,
  uploadAllowance,
} from '@/features/editorial-product/canvas-geometry';

const image = (figures: Partial<CanvasImage> = {}): CanvasImage => ({ id: 'a', dataUrl: '', x: 500, y: 500, width: 400, height: 200, scale: 1, rotation: 0, ...figures });

test('upload limit: 10 images, the spec messages', () => {
  expect(uploadAllowance(0, 10)).toEqual({ accept: 10, message: null });
  expect(uploadAllowance(8, 3)).toEqual({ accept: 0, message: 'You can only upload 2 more image(s). Maximum is 10 images.' });
  expect(uploadAllowance(10, 1)).toEqual({ accept: 0, message: LIMIT_REACHED });
  expect(LIMIT_REACHED).toBe('Upload limit: Maximum 10 images allowed on canvas');
});

test('scale clamps: 0.1–5 dragging a corner, 0.1–3 with the step buttons', () => {
  expect(clampDragScale(7)).toBe(5);
  expect(clampDragScale(0.01)).toBe(0.1);
  expect(stepScale(2.95, 0.1)).toBe(3);
  expect(stepScale(3, 0.1)).toBe(3);
  expect(stepScale(0.15, -0.1)).toBe(0.1);
  expect(stepScale(0.3, 0.1)).toBe(0.4);
  expect(scaleFromCorner(image(), 500 + 5000, 500)).toBe(5);
  expect(scaleFromCorner(image(), 500 + 400, 500 + 10)).toBe(2);
});

test('initial scale is 0.3 × fit, capped at 1; display is at most 600 px', () => {
  expect(initialScale(2400, 1200, 1200, 1200)).toBeCloseTo(0.15);
  expect(initialScale(100, 100, 1200, 1200)).toBe(1);
  expect(displaySize({ label: '16:9', value: '16:9', width: 1920, height: 1080 })).toEqual({ width: 600, height: 338 });
});

test('hit testing honours rotation; handles: corners and the top rotate handle', () => {
  const rotated = image({ rotation: 90 });
  // 400 wide turned upright: (500, 680) is inside, (680, 500) is not
  expect(hitImage([rotated], 500, 680)?.id).toBe('a');
  expect(hitImage([rotated], 680, 500)).toBeNull();
  const flat = image();
  expect(hitHandle(flat, 700, 600)).toBe('se');
  expect(hitHandle(flat, 305, 395)).toBe('nw');
  expect(hitHandle(flat, 500, 370)).toBe('rotate');
  expect(hitHandle(flat, 500, 500)).toBeNull();
  expect(rotateBy(350, 15)).toBe(5);
  expect(rotateBy(0, -15)).toBe(345);
});
