import { queryOptions, useQuery } from '@tanstack/react-query';

import { apiClient } from '@/lib/api-client';
import type { Tool, ToolCategory } from '@/types/api';

export const toolKeys = {
  all: ['tools'] as const,
  list: () => [...toolKeys.all, 'list'] as const,
};

export const getTools = (): Promise<Tool[]> => apiClient.get<Tool[]>('/api/tools/');

export const toolsQueryOptions = () =>
  queryOptions({
    queryKey: toolKeys.list(),
    queryFn: getTools,
    // Access changes only when staff enable a tool; a few minutes of staleness is fine.
    staleTime: 5 * 60 * 1000,
  });

export function useTools({ enabled = true }: { enabled?: boolean } = {}) {
  return useQuery({ ...toolsQueryOptions(), enabled });
}

/** The catalogue indexed by slug; empty while it loads (or while `enabled` is false). */
export function useToolsBySlug({ enabled = true }: { enabled?: boolean } = {}): Map<string, Tool> {
  const tools = useTools({ enabled });
  const list = tools.data ?? [];
  return new Map(list.map((tool) => [tool.slug, tool]));
}

/** A tool can be opened when the catalogue has it unlocked and it has a page. */
export function canOpen<T extends Pick<Tool, 'locked' | 'route'>>(tool: T): tool is T & { route: string } {
  return !tool.locked && Boolean(tool.route);
}

/**
 * Navigation menu layout (spec part 1, §2 "Navigation bar"). The grouping and order are the
 * spec's; whether an entry is open comes from the catalogue, so a tool staff enable for an
 * organisation shows unlocked without a new build. `fallback` is used only until (or if) the
 * catalogue answers.
 */
export type NavEntry = {
  slug: string;
  label: string;
  fallback: { route: string | null; locked: boolean; badge: string };
};

export type NavGroup = {
  /** Absent for the trailing group of disabled entries. */
  title?: string;
  entries: NavEntry[];
};

const open = (slug: string, label: string, route: string): NavEntry => ({
  slug,
  label,
  fallback: { route, locked: false, badge: 'V1.0' },
});
const closed = (slug: string, label: string, badge: string): NavEntry => ({
  slug,
  label,
  fallback: { route: null, locked: true, badge },
});

export const NAV_TOOL_GROUPS: NavGroup[] = [
  {
    title: 'EDITORIAL',
    entries: [
      open('editorial', 'Editorial', '/editorial'),
      open('tonelab', 'Tonelab', '/tonelab'),
      open('garment-integration', 'Garment Integration', '/restyle-editorial'),
      open('editorial-product', 'Editorial Product', '/editorial-product'),
      closed('editorial-video', 'Editorial Video', 'Locked'),
      closed('digital-twin', 'Digital Twin', 'Locked'),
    ],
  },
  {
    title: 'ECOMMERCE',
    entries: [
      open('remodel', 'Remodel', '/remodel'),
      open('earfit', 'Earfit', '/earring-catalog'),
      open('baghold', 'Baghold', '/bag-holder'),
      open('spinview', 'Spinview', '/catalog-video'),
      open('restyle', 'Restyle', '/restyle-tool'),
      open('rebody', 'Rebody', '/rebody'),
      open('flats', 'Flats Ecommerce', '/flats-catalog'),
      open('ecommerce-asset', 'Ecommerce Asset', '/catalog-asset'),
    ],
  },
  {
    title: 'DESIGN',
    entries: [
      open('recolor', 'Recolor', '/recoloring'),
      open('refabric', 'Refabric', '/refabric'),
      open('reshape', 'Reshape', '/reshaping'),
      open('open-lab', 'Open Lab', '/open-lab'),
      closed('pattern', 'Pattern', 'Locked'),
    ],
  },
  {
    entries: [
      closed('virtual-try-on-app', 'Virtual Try-On App', 'Private'),
      closed('live-restyle', 'Live Restyle', 'Private'),
      closed('ai-agent', 'AI Agent', 'Playground'),
    ],
  },
];

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

/** Every tool route of the spec and the catalogue slug behind it; `name` until the catalogue answers. */
export const TOOL_ROUTES: { path: string; slug: string; name: string }[] = [
  { path: '/editorial', slug: 'editorial', name: 'Editorial' },
  { path: '/tonelab', slug: 'tonelab', name: 'Tonelab' },
  { path: '/restyle-editorial', slug: 'garment-integration', name: 'Garment Integration' },
  { path: '/editorial-product', slug: 'editorial-product', name: 'Editorial Product' },
  { path: '/remodel', slug: 'remodel', name: 'Remodel' },
  { path: '/earring-catalog', slug: 'earfit', name: 'Earfit' },
  { path: '/bag-holder', slug: 'baghold', name: 'Baghold' },
  { path: '/catalog-video', slug: 'spinview', name: 'Spinview' },
  { path: '/restyle-tool', slug: 'restyle', name: 'Restyle' },
  { path: '/rebody', slug: 'rebody', name: 'Rebody' },
  { path: '/flats-catalog', slug: 'flats', name: 'Flats Ecommerce' },
  { path: '/catalog-asset', slug: 'ecommerce-asset', name: 'Ecommerce Asset' },
  { path: '/recoloring', slug: 'recolor', name: 'Recolor' },
  { path: '/refabric', slug: 'refabric', name: 'Refabric' },
  { path: '/reshaping', slug: 'reshape', name: 'Reshape' },
  { path: '/open-lab', slug: 'open-lab', name: 'Open Lab' },
  { path: '/tech-pack', slug: 'tech-pack', name: 'Tech Pack Lab' },
  { path: '/virtual-try-on', slug: 'virtual-try-on', name: 'Virtual Try-On' },
  { path: '/model-swapper', slug: 'model-swap', name: 'Model Swap' },
];
