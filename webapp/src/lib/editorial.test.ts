import { etaText, initialParamState, normaliseResults, paramReducer, parsePreset, PresetFileError, toImageSrc } from '@/lib/editorial';

type F = 'lighting' | 'colorStyle' | 'cameraDetails';
const FIELDS: F[] = ['lighting', 'colorStyle', 'cameraDetails'];

test('analysis fills only untouched fields; refill re-applies and clears marks', () => {
  let state = initialParamState(FIELDS);
  state = paramReducer(state, { type: 'edit', field: 'lighting', value: 'my light' });
  state = paramReducer(state, { type: 'analysis', analysis: { lighting: 'soft', colorStyle: 'muted', cameraDetails: '35mm' } });
  expect(state.values).toEqual({ lighting: 'my light', colorStyle: 'muted', cameraDetails: '35mm' });
  expect(state.touched).toEqual(['lighting']);

  state = paramReducer(state, { type: 'refill' });
  expect(state.values.lighting).toBe('soft');
  expect(state.touched).toEqual([]);
});

test('a preset marks every field touched, so a later analysis leaves it alone; reset clears values and marks', () => {
  let state = initialParamState(FIELDS);
  state = paramReducer(state, { type: 'preset', values: { lighting: 'a', colorStyle: '', cameraDetails: 'c' } });
  expect(new Set(state.touched)).toEqual(new Set(FIELDS));
  state = paramReducer(state, { type: 'analysis', analysis: { lighting: 'x', colorStyle: 'y', cameraDetails: 'z' } });
  expect(state.values).toEqual({ lighting: 'a', colorStyle: '', cameraDetails: 'c' });

  state = paramReducer(state, { type: 'reset' });
  expect(state.values).toEqual({ lighting: '', colorStyle: '', cameraDetails: '' });
  expect(state.touched).toEqual([]);
  // the analysis survives a reset: Refill brings it back
  expect(paramReducer(state, { type: 'refill' }).values.cameraDetails).toBe('z');
});

test('a template sets Camera Details and marks it; Custom restores the analysis text or clears, only when untouched', () => {
  let state = initialParamState(FIELDS);
  state = paramReducer(state, { type: 'analysis', analysis: { cameraDetails: 'from analysis' } });
  state = paramReducer(state, { type: 'template', field: 'cameraDetails', text: 'Warm 70s', custom: false });
  expect(state.values.cameraDetails).toBe('Warm 70s');
  expect(state.touched).toContain('cameraDetails');
  // touched: Custom leaves it
  expect(paramReducer(state, { type: 'template', field: 'cameraDetails', text: '', custom: true }).values.cameraDetails).toBe('Warm 70s');

  const untouched = paramReducer(initialParamState(FIELDS), { type: 'analysis', analysis: { cameraDetails: 'from analysis' } });
  const dirty = { ...untouched, values: { ...untouched.values, cameraDetails: 'something' } };
  expect(paramReducer(dirty, { type: 'template', field: 'cameraDetails', text: '', custom: true }).values.cameraDetails).toBe('from analysis');
  const noAnalysis = { ...initialParamState(FIELDS), values: { lighting: '', colorStyle: '', cameraDetails: 'old' } };
  expect(paramReducer(noAnalysis, { type: 'template', field: 'cameraDetails', text: '', custom: true }).values.cameraDetails).toBe('');
});

test.each([
  [35, 'ETA 35s'],
  [1, 'ETA 1s'],
  [0, 'FINALIZING...'],
  [-15, 'FINALIZING...'],
])('countdown %i reads %s', (seconds, text) => {
  expect(etaText(seconds)).toBe(text);
});

test('preset files: missing fields become empty; non-JSON and non-objects are refused', () => {
  expect(parsePreset('{"lighting":"soft","extra":1,"colorStyle":3}', FIELDS)).toEqual({ lighting: 'soft', colorStyle: '', cameraDetails: '' });
  expect(() => parsePreset('not json', FIELDS)).toThrow(PresetFileError);
  expect(() => parsePreset('[1,2]', FIELDS)).toThrow(PresetFileError);
  expect(() => parsePreset('null', FIELDS)).toThrow(PresetFileError);
});

test('results: every accepted form, bare base64 prefixed, padded by repeating the last', () => {
  expect(normaliseResults({ result1: 'AAA', result2: { value: 'data:image/png;base64,BBB' } })).toEqual([
    'data:image/png;base64,AAA',
    'data:image/png;base64,BBB',
    'data:image/png;base64,BBB',
  ]);
  expect(normaliseResults(['https://x/1.png'])).toEqual(['https://x/1.png', 'https://x/1.png', 'https://x/1.png']);
  expect(normaliseResults({ images: ['A', 'B', 'C', 'D'] })).toHaveLength(3);
  expect(normaliseResults({ url: 'https://x/a.png' }, 2)).toEqual(['https://x/a.png', 'https://x/a.png']);
  expect(normaliseResults({ notes: 'nothing' })).toEqual([]);
});

test('toImageSrc types bare base64 by how it begins and keeps URLs', () => {
  expect(toImageSrc('/9j/4AAQ')).toBe('data:image/jpeg;base64,/9j/4AAQ');
  expect(toImageSrc(' iVBORw0KGgoAAA ')).toBe('data:image/png;base64,iVBORw0KGgoAAA');
  expect(toImageSrc('UklGRiQAAABXRUJQ')).toBe('data:image/webp;base64,UklGRiQAAABXRUJQ');
  expect(toImageSrc('QUJD')).toBe('data:image/png;base64,QUJD');
  expect(toImageSrc('/api/jobs/j1/outputs/0')).toBe('/api/jobs/j1/outputs/0');
  expect(toImageSrc('https://cdn.example/a.jpg')).toBe('https://cdn.example/a.jpg');
  expect(toImageSrc('data:image/gif;base64,R0lGOD')).toBe('data:image/gif;base64,R0lGOD');
});
