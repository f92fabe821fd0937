import { workEta } from '@/components/tool/status-bar';
import type { ToolQueue } from '@/types/api';

const queue = (figures: Partial<ToolQueue>): ToolQueue => ({
  tool: 'virtual-try-on',
  queue: 'interactive',
  queued: 0,
  running: 0,
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
