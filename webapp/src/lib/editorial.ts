import { queryOptions, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';

import { apiClient } from '@/lib/api-client';

/** Editorial, Tonelab and Editorial Product share these pieces (spec part 2, §3–§9). */

export type CameraTemplate = { title: string; camera_details: string };
export type PhotoPreset = { title: string; sentence: string };

export const editorialKeys = {
  all: ['editorial'] as const,
  cameraTemplates: () => [...editorialKeys.all, 'camera-templates'] as const,
  photoPresets: () => [...editorialKeys.all, 'photo-presets'] as const,
};

export const getCameraTemplates = () => apiClient.get<CameraTemplate[]>('/api/camera-templates/');
export const getPhotoPresets = () => apiClient.get<PhotoPreset[]>('/api/photo-presets/');

// Fixed texts on the server: cache them for the session.
export const cameraTemplatesQueryOptions = () =>
  queryOptions({ queryKey: editorialKeys.cameraTemplates(), queryFn: getCameraTemplates, staleTime: Infinity });
export const photoPresetsQueryOptions = () =>
  queryOptions({ queryKey: editorialKeys.photoPresets(), queryFn: getPhotoPresets, staleTime: Infinity });

export const useCameraTemplates = () => useQuery(cameraTemplatesQueryOptions());
export const usePhotoPresets = () => useQuery(photoPresetsQueryOptions());

/** http or https, as `new URL` parses it. */
export function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text.trim());
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** Previews show only for URLs ending in jpg, jpeg, png, gif or webp (query string aside). */
export function hasPreviewExtension(text: string): boolean {
  return /\.(jpe?g|png|gif|webp)(?:[?#].*)?$/i.test(text.trim());
}

/** ETA countdown: 35 s down to -15, then it stops (§4, §9). */
export const COUNTDOWN_START = 35;
export const COUNTDOWN_END = -15;

export function etaText(seconds: number): string {
  return seconds > 0 ? `ETA ${seconds}s` : 'FINALIZING...';
}

export function useCountdown(running: boolean): number {
  const [seconds, setSeconds] = useState(COUNTDOWN_START);
  useEffect(() => {
    if (!running) return undefined;
    setSeconds(COUNTDOWN_START);
    const timer = window.setInterval(() => {
      setSeconds((current) => (current > COUNTDOWN_END ? current - 1 : current));
    }, 1000);
    return () => window.clearInterval(timer);
  }, [running]);
  return seconds;
}

// ---------------------------------------------------------------------------------------------
// Touched-field rules: analysis never overwrites what the user typed.

export type FieldValues<K extends string> = Record<K, string>;

export type ParamState<K extends string> = {
  values: FieldValues<K>;
  touched: K[];
  /** The last analysis, mapped onto form keys. */
  analysis: Partial<FieldValues<K>> | null;
};

export type ParamAction<K extends string> =
  | { type: 'edit'; field: K; value: string }
  | { type: 'analysis'; analysis: Partial<FieldValues<K>> }
  | { type: 'refill' }
  | { type: 'preset'; values: FieldValues<K> }
  | { type: 'reset' }
  | { type: 'template'; field: K; text: string; custom: boolean };

export const emptyValues = <K extends string>(fields: readonly K[]): FieldValues<K> =>
  Object.fromEntries(fields.map((field) => [field, ''])) as FieldValues<K>;

export function initialParamState<K extends string>(fields: readonly K[]): ParamState<K> {
  return { values: emptyValues(fields), touched: [], analysis: null };
}

export function paramReducer<K extends string>(state: ParamState<K>, action: ParamAction<K>): ParamState<K> {
  const touched = new Set(state.touched);
  switch (action.type) {
    case 'edit':
      touched.add(action.field);
      return { ...state, values: { ...state.values, [action.field]: action.value }, touched: [...touched] };
    case 'analysis': {
      const values = { ...state.values };
      for (const [field, text] of Object.entries(action.analysis) as [K, string][]) {
        if (!touched.has(field)) values[field] = text;
      }
      return { ...state, values, analysis: action.analysis };
    }
    case 'refill':
      return { ...state, values: { ...state.values, ...(state.analysis ?? {}) }, touched: [] };
    case 'preset':
      return { ...state, values: { ...action.values }, touched: Object.keys(action.values) as K[] };
    case 'reset':
      return { ...state, values: emptyValues(Object.keys(state.values) as K[]), touched: [] };
    case 'template': {
      if (!action.custom) {
        touched.add(action.field);
        return { ...state, values: { ...state.values, [action.field]: action.text }, touched: [...touched] };
      }
      // Custom: back to the analysis text when untouched, else empty when untouched.
      if (touched.has(action.field)) return state;
      const fromAnalysis = state.analysis?.[action.field];
      return { ...state, values: { ...state.values, [action.field]: fromAnalysis ? fromAnalysis : '' } };
    }
    default:
      return state;
  }
}

// ---------------------------------------------------------------------------------------------
// Presets (JSON files).

export class PresetFileError extends Error {}

/** A preset file: a JSON object; missing (or non-text) fields become empty. */
export function parsePreset<K extends string>(text: string, fields: readonly K[]): FieldValues<K> {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new PresetFileError('not JSON');
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) throw new PresetFileError('not an object');
  const record = data as Record<string, unknown>;
  return Object.fromEntries(fields.map((field) => [field, typeof record[field] === 'string' ? record[field] : ''])) as FieldValues<K>;
}

export const isJsonFile = (file: File) => file.name.toLowerCase().endsWith('.json') || file.type === 'application/json';

const readFile = (file: Blob, as: 'text' | 'data-url'): Promise<string> =>
  new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result ?? ''));
    reader.onerror = () => reject(reader.error ?? new Error('read failed'));
    if (as === 'text') reader.readAsText(file);
    else reader.readAsDataURL(file);
  });

export const readFileText = (file: File): Promise<string> => readFile(file, 'text');

export const readFileDataUrl = (file: Blob): Promise<string> => readFile(file, 'data-url');

// ---------------------------------------------------------------------------------------------
// Results.

/** How the base64 of each image type begins (a JPEG's '/9j/' would otherwise pass for a path). */
const BASE64_TYPES: [string, string][] = [
  ['/9j/', 'image/jpeg'],
  ['iVBORw0KGgo', 'image/png'],
  ['UklGR', 'image/webp'],
  ['R0lGOD', 'image/gif'],
];

/** Bare base64 gets a data prefix of its image type (PNG when unknown); data, http(s) and
 * same-origin URLs are kept. */
export function toImageSrc(value: string): string {
  const text = value.trim();
  const known = BASE64_TYPES.find(([start]) => text.startsWith(start));
  if (known) return `data:${known[1]};base64,${text}`;
  if (text.startsWith('data:') || /^https?:\/\//.test(text) || text.startsWith('/')) return text;
  return `data:image/png;base64,${text}`;
}

/** The base64 part of a data URL (the API wants it without the prefix). */
export const stripDataPrefix = (dataUrl: string) => dataUrl.replace(/^data:[^,]*,/, '');

const asText = (value: unknown): string | null => {
  if (typeof value === 'string' && value.trim()) return value;
  if (value && typeof value === 'object' && 'value' in value && typeof (value as { value: unknown }).value === 'string') {
    return (value as { value: string }).value;
  }
  return null;
};

/** Every accepted response form (§7) as image sources, padded to `count` by repeating the last. */
export function normaliseResults(data: unknown, count = 3): string[] {
  let found: string[] = [];
  if (Array.isArray(data)) found = data.map(asText).filter((item): item is string => Boolean(item));
  else if (typeof data === 'string') found = data.trim() ? [data] : [];
  else if (data && typeof data === 'object') {
    const record = data as Record<string, unknown>;
    const numbered = Array.from({ length: count }, (_, index) => asText(record[`result${index + 1}`])).filter((item): item is string => Boolean(item));
    if (numbered.length) found = numbered;
    else if (Array.isArray(record.images)) found = record.images.map(asText).filter((item): item is string => Boolean(item));
    else {
      const single = asText(record.image) ?? asText(record.url);
      if (single) found = [single];
    }
  }
  const images = found.slice(0, count).map(toImageSrc);
  if (!images.length) return [];
  while (images.length < count) images.push(images[images.length - 1]);
  return images;
}

/** Saves a data URL or URL under a file name. */
export function downloadFile(href: string, filename: string) {
  const link = document.createElement('a');
  link.href = href;
  link.download = filename;
  document.body.appendChild(link);
  link.click();
  link.remove();
}

export function downloadJson(data: unknown, filename: string) {
  const blob = new Blob([JSON.stringify(data, null, 2)], { type: 'application/json' });
  const url = URL.createObjectURL(blob);
  downloadFile(url, filename);
  window.setTimeout(() => URL.revokeObjectURL(url), 0);
}
