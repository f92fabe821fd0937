import type { Tool, ToolQueue } from '@/types/api';

type Row = [slug: string, name: string, category: Tool['category'], route: string | null, badge: Tool['badge'], access?: Tool['access']];

// Mirrors the backend registry (platform/tools/registry.py) for one ordinary partner.
const ROWS: Row[] = [
  ['editorial', 'Editorial', 'editorial', '/editorial', 'V1.0'],
  ['tonelab', 'Tonelab', 'editorial', '/tonelab', 'V1.0'],
  ['garment-integration', 'Garment Integration', 'editorial', '/restyle-editorial', 'V1.0'],
  ['editorial-product', 'Editorial Product', 'editorial', '/editorial-product', 'V1.0'],
  ['editorial-video', 'Editorial Video', 'editorial', null, 'Locked', 'locked'],
  ['digital-twin', 'Digital Twin', 'editorial', null, 'Locked', 'locked'],
  ['remodel', 'Remodel', 'ecommerce', '/remodel', 'V1.0'],
  ['earfit', 'Earfit', 'ecommerce', '/earring-catalog', 'V1.0'],
  ['baghold', 'Baghold', 'ecommerce', '/bag-holder', 'V1.0'],
  ['spinview', 'Spinview', 'ecommerce', '/catalog-video', 'V1.0'],
  ['restyle', 'Restyle', 'ecommerce', '/restyle-tool', 'V1.0'],
  ['rebody', 'Rebody', 'ecommerce', '/rebody', 'V1.0'],
  ['flats', 'Flats Ecommerce', 'ecommerce', '/flats-catalog', 'V1.0'],
  ['ecommerce-asset', 'Ecommerce Asset', 'ecommerce', '/catalog-asset', 'V1.0'],
  ['recolor', 'Recolor', 'design', '/recoloring', 'V1.0'],
  ['refabric', 'Refabric', 'design', '/refabric', 'V1.0'],
  ['reshape', 'Reshape', 'design', '/reshaping', 'V1.0'],
  ['open-lab', 'Open Lab', 'design', '/open-lab', 'V1.0'],
  ['pattern', 'Pattern', 'design', null, 'Locked', 'locked'],
  ['tech-pack', 'Tech Pack Lab', 'design', '/tech-pack', 'Beta'],
  ['virtual-try-on', 'Virtual Try-On', 'commercial', '/virtual-try-on', 'V1.0'],
  ['model-swap', 'Model Swap', 'commercial', '/model-swapper', 'V1.0'],
  ['virtual-try-on-app', 'Virtual Try-On App', 'commercial', null, 'Private', 'private'],
  ['live-restyle', 'Live Restyle', 'commercial', null, 'Private', 'private'],
  ['ai-agent', 'AI Agent', 'playground', null, 'Playground', 'locked'],
];

/** The catalogue as GET /api/tools/ answers it; `overrides` by slug change single entries. */
export function catalogue(overrides: Record<string, Partial<Tool>> = {}): Tool[] {
  return ROWS.map(([slug, name, category, route, badge, access = 'open']) => ({
    slug,
    name,
    category,
    route,
    badge,
    access,
    locked: access !== 'open',
    available: access === 'open',
    eta_text: '',
    examples: [],
    ...overrides[slug],
  }));
}

export function queueRow(tool: string, figures: Partial<ToolQueue> = {}): ToolQueue {
  return { tool, queue: 'batch', queued: 0, running: 0, avg_seconds: 90, eta_seconds: 90, ...figures };
}
