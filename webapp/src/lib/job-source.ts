import type { Job } from '@/types/api';

// The input fields that name what a job works on: an image, a product shot, a drive file.
const SOURCE_KEYS = ['image_url', 'ring_image', 'Bag_Url', 'file_name', 'filename', 'name', 'source', 'code', 'outfit'];
// Two-image direct tools: the look (or model) and the garment (or product) put on it.
const PAIR_KEYS: [string, string][] = [
  ['outfit_url', 'garment_url'],
  ['modelUrl', 'garmentUrl'],
];

/** The last segment of a URL or path: `https://cdn/x/look.jpg` → `look.jpg`. */
export function lastSegment(value: string): string {
  try {
    const path = new URL(value).pathname;
    return decodeURIComponent(path.split('/').filter(Boolean).at(-1) ?? value);
  } catch {
    return value.split('/').at(-1) || value;
  }
}

const inputOf = (job: Job): Record<string, unknown> => (job.input && typeof job.input === 'object' ? (job.input as Record<string, unknown>) : {});

const text = (value: unknown): string | null => (typeof value === 'string' && value ? value : null);

/** The job's input image, product or drive file by name; null when its input names none. */
export function jobSourceName(job: Job): string | null {
  const input = inputOf(job);
  const key = SOURCE_KEYS.find((name) => text(input[name]));
  if (key) return lastSegment(String(input[key]));
  for (const [first, second] of PAIR_KEYS) {
    const names = [text(input[first]), text(input[second])].filter((value): value is string => value !== null).map(lastSegment);
    if (names.length) return names.join(' + ');
  }
  return null;
}

/** The library model a job dresses (Earfit, Baghold, Remodel, Model Swap), if any. */
export function jobModelName(job: Job): string | null {
  return text(inputOf(job).model_name);
}
