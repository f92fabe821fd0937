import type { Tool, ToolNavGroup, ToolQueue } from '@/types/api';

type Row = [
  slug: string,
  name: string,
  category: Tool['category'],
  route: string | null,
  badge: Tool['badge'],
  navGroup: ToolNavGroup | null,
  access?: Tool['access'],
];

// Mirrors the backend catalogue (GET /api/tools/) for one ordinary partner, in its order.
const ROWS: Row[] = [
  ['editorial', 'Editorial', 'editorial', '/editorial', 'V1.0', 'EDITORIAL'],
  ['tonelab', 'Tonelab', 'editorial', '/tonelab', 'V1.0', 'EDITORIAL'],
  ['garment-integration', 'Garment Integration', 'editorial', '/restyle-editorial', 'V1.0', 'EDITORIAL'],
  ['editorial-product', 'Editorial Product', 'editorial', '/editorial-product', 'V1.0', 'EDITORIAL'],
  ['editorial-video', 'Editorial Video', 'editorial', null, 'Locked', 'EDITORIAL', 'locked'],
  ['digital-twin', 'Digital Twin', 'editorial', null, 'Locked', 'EDITORIAL', 'locked'],
  ['remodel', 'Remodel', 'ecommerce', '/remodel', 'V1.0', 'ECOMMERCE'],
  ['earfit', 'Earfit', 'ecommerce', '/earring-catalog', 'V1.0', 'ECOMMERCE'],
  ['baghold', 'Baghold', 'ecommerce', '/bag-holder', 'V1.0', 'ECOMMERCE'],
  ['spinview', 'Spinview', 'ecommerce', '/catalog-video', 'V1.0', 'ECOMMERCE'],
  ['restyle', 'Restyle', 'ecommerce', '/restyle-tool', 'V1.0', 'ECOMMERCE'],
  ['rebody', 'Rebody', 'ecommerce', '/rebody', 'V1.0', 'ECOMMERCE'],
  ['flats', 'Flats Ecommerce', 'ecommerce', '/flats-catalog', 'V1.0', 'ECOMMERCE'],
  ['ecommerce-asset', 'Ecommerce Asset', 'ecommerce', '/catalog-asset', 'V1.0', 'ECOMMERCE'],
  ['recolor', 'Recolor', 'design', '/recoloring', 'V1.0', 'DESIGN'],
  ['refabric', 'Refabric', 'design', '/refabric', 'V1.0', 'DESIGN'],
  ['reshape', 'Reshape', 'design', '/reshaping', 'V1.0', 'DESIGN'],
  ['open-lab', 'Open Lab', 'design', '/open-lab', 'V1.0', 'DESIGN'],
  ['pattern', 'Pattern', 'design', null, 'Locked', 'DESIGN', 'locked'],
  ['tech-pack', 'Tech Pack Lab', 'design', '/tech-pack', 'Beta', null],
  ['virtual-try-on', 'Virtual Try-On', 'commercial', '/virtual-try-on', 'V1.0', null],
  ['model-swap', 'Model Swap', 'commercial', '/model-swapper', 'V1.0', null],
  ['virtual-try-on-app', 'Virtual Try-On App', 'commercial', null, 'Private', '', 'private'],
  ['live-restyle', 'Live Restyle', 'commercial', null, 'Private', '', 'private'],
  ['ai-agent', 'AI Agent', 'playground', null, 'Playground', '', 'locked'],
];

// The server's choice lists (platform/tools/serializers.py), as the catalogue serves them.
const RECOLOR_GARMENTS = [
  'blazer', 'blouse', 'cardigan', 'coat', 'dress', 'full-garment', 'hoodie', 'jacket', 'jeans', 'jumpsuit', 'polo',
  'pullover', 'romper', 'shirt', 'shorts', 'skirt', 'sweater', 'sweatshirt', 'top', 'trousers', 'tshirt',
];
const RESHAPE_GARMENTS = [
  'blazer', 'blouse', 'cardigan', 'coat', 'dress', 'full garment', 'hoodie', 'jacket', 'jeans', 'jumpsuit', 'outerwear', 'polo',
  'pullover', 'romper', 'shirt', 'shorts', 'skirt', 'sweater', 'sweatshirt', 't-shirt', 'top', 'trousers / pants',
];
const CHOICES: Record<string, Record<string, string[]>> = {
  recolor: { garment_type: RECOLOR_GARMENTS },
  refabric: {
    re_fabric: [
      'acrylic', 'alpaca', 'canvas', 'cashmere', 'chiffon', 'cotton', 'cupro', 'denim', 'fleece', 'jersey', 'leather', 'linen', 'lyocell',
      'modal', 'mohair', 'nylon', 'organza', 'polyester', 'silk', 'spandex', 'suede', 'tulle', 'tweed', 'velvet', 'viscose', 'wool',
    ],
    material_finish: ['glossy', 'matte', 'metallic', 'patterned', 'sheer', 'textured'],
    target_garment: ['accessory', ...RECOLOR_GARMENTS.slice(0, 10), 'outerwear', ...RECOLOR_GARMENTS.slice(10)],
  },
  reshape: {
    place: ['back', 'collar', 'fit', 'hem', 'length', 'neckline', 'shoulders', 'silhouette', 'sleeves', 'waist'],
    target_garment: RESHAPE_GARMENTS,
  },
  rebody: {
    target_bodytype: ['Standard Fit', 'Curvy Fit', 'Pear Silhouette', 'Slim Fit', 'Athletic Build', 'Petite', 'Slim with Bust', 'Hourglass'],
  },
  baghold: { Gender: ['Male', 'Female'] },
  flats: { categories: ['shoes', 'bottom', 'top', 'overlayer'] },
};

/** The catalogue as GET /api/tools/ answers it; `overrides` by slug change single entries. */
export function catalogue(overrides: Record<string, Partial<Tool>> = {}): Tool[] {
  return ROWS.map(([slug, name, category, route, badge, navGroup, access = 'open']) => ({
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
    nav_group: navGroup,
    nav_label: name,
    choices: CHOICES[slug] ?? {},
    ...overrides[slug],
  }));
}

export function queueRow(tool: string, figures: Partial<ToolQueue> = {}): ToolQueue {
  return { tool, queue: 'batch', queued: 0, running: 0, avg_seconds: 90, eta_seconds: 90, ...figures };
}
