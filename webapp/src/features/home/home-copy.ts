import type { ToolCategory } from '@/types/api';

/** Landing page categories (spec part 1, §1), in the spec's order. */
export const CATEGORIES: { id: ToolCategory; title: string; note?: string; description: string }[] = [
  { id: 'editorial', title: 'Editorial Hub', description: 'Editorial imagery from catalog shots.' },
  { id: 'ecommerce', title: 'Ecommerce Studio', description: 'Catalog, model and product assets at scale.' },
  { id: 'design', title: 'Design Lab', description: 'Recolour, refabric, reshape and explore designs.' },
  { id: 'commercial', title: 'Commercial Solutions', note: 'Private', description: 'Tools built with selected partners.' },
  { id: 'playground', title: 'Playground', note: 'Live soon', description: 'Experiments from the lab.' },
];

/** Release notes: which model family each version badge stands for (spec part 1, §1). */
export const RELEASE_NOTES: { version: string; model: string }[] = [
  { version: 'Beta', model: 'Foundation Model API' },
  { version: 'V1', model: 'Hyperparameterized Multi-Model Ensemble' },
  { version: 'V2', model: 'Context-Engineered Reasoning Pipeline' },
];
