import { queueFigure, workEta } from '@/components/tool/status-bar';
import type { ToolQueue } from '@/types/api';

const queue = (figures: Partial<ToolQueue>): ToolQueue => ({
  tool: 'virtual-try-on',
  queue: 'interactive',
  queued: 0,
  running: 0,
  queue_position: null,
  avg_seconds: 12,
  eta_seconds: 12,
  ...figures,
});

test('idle: the ETA is that of a job sent now', () => {
  expect(workEta(queue({ eta_seconds: 30 }), 0)).toBe(30);
});

test('with our own job in the queue, the extra job of "sent now" is not counted twice', () => {
  // one running job with 8 s to go, plus the 12 s a job sent now would take
  expect(workEta(queue({ running: 1, eta_seconds: 20 }), 1)).toBe(8);
  expect(workEta(queue({ running: 1, eta_seconds: 5 }), 1)).toBe(0);
});

test('no figures yet: no ETA', () => {
  expect(workEta(undefined, 0)).toBeUndefined();
});

test("Queue: our waiting job's position, the figure its job line shows; else our jobs in flight", () => {
  expect(queueFigure(queue({ queued: 2, queue_position: 6 }), true)).toBe(6);
  // next in line, or running: the spec's 1 while processing
  expect(queueFigure(queue({ queued: 1, queue_position: 0 }), false)).toBe(1);
  expect(queueFigure(queue({ running: 1 }), false)).toBe(1);
  expect(queueFigure(queue({}), true)).toBe(1);
  expect(queueFigure(queue({}), false)).toBe(0);
  expect(queueFigure(undefined, false)).toBe(0);
});
