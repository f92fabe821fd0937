import { resetAudioContextForTests } from '@/lib/sound';

/**
 * Installs a fake Web Audio context around each test of the calling file (jsdom has none) and
 * returns the mock that records every tone started: the denial sound is one oscillator start.
 */
export function fakeAudio(): jest.Mock {
  const oscillatorStarts = jest.fn();
  const param = () => ({ setValueAtTime: jest.fn(), exponentialRampToValueAtTime: jest.fn() });

  class FakeAudioContext {
    state = 'running';
    currentTime = 0;
    destination = {};
    resume = jest.fn();
    createOscillator() {
      return { type: '', frequency: param(), connect: jest.fn(), start: oscillatorStarts, stop: jest.fn() };
    }
    createGain() {
      return { gain: param(), connect: jest.fn() };
    }
  }

  beforeEach(() => {
    resetAudioContextForTests();
    Object.defineProperty(window, 'AudioContext', { value: FakeAudioContext, configurable: true, writable: true });
  });
  afterEach(() => {
    delete (window as { AudioContext?: unknown }).AudioContext;
    oscillatorStarts.mockReset();
  });
  return oscillatorStarts;
}
