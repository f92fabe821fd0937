/** Tool catalogue shown in the navigation menu (spec part 1, §2 "Navigation bar"). */
export type ToolBadge = 'LOCKED' | 'PRIVATE' | 'PLAYGROUND';

export type ToolEntry = {
  label: string;
  /** Absent for entries that cannot be opened (locked, private, playground). */
  path?: string;
  badge?: ToolBadge;
};

export type ToolGroup = {
  /** Absent for the trailing group of disabled entries. */
  title?: string;
  tools: ToolEntry[];
};

export const NAV_TOOL_GROUPS: ToolGroup[] = [
  {
    title: 'EDITORIAL',
    tools: [
      { label: 'Editorial', path: '/editorial' },
      { label: 'Tonelab', path: '/tonelab' },
      { label: 'Garment Integration', path: '/restyle-editorial' },
      { label: 'Editorial Product', path: '/editorial-product' },
      { label: 'Editorial Video', badge: 'LOCKED' },
      { label: 'Digital Twin', badge: 'LOCKED' },
    ],
  },
  {
    title: 'ECOMMERCE',
    tools: [
      { label: 'Remodel', path: '/remodel' },
      { label: 'Earfit', path: '/earring-catalog' },
      { label: 'Baghold', path: '/bag-holder' },
      { label: 'Spinview', path: '/catalog-video' },
      { label: 'Restyle', path: '/restyle-tool' },
      { label: 'Rebody', path: '/rebody' },
      { label: 'Flats Ecommerce', path: '/flats-catalog' },
      { label: 'Ecommerce Asset', path: '/catalog-asset' },
    ],
  },
  {
    title: 'DESIGN',
    tools: [
      { label: 'Recolor', path: '/recoloring' },
      { label: 'Refabric', path: '/refabric' },
      { label: 'Reshape', path: '/reshaping' },
      { label: 'Open Lab', path: '/open-lab' },
      { label: 'Pattern', badge: 'LOCKED' },
    ],
  },
  {
    tools: [
      { label: 'Virtual Try-On App', badge: 'PRIVATE' },
      { label: 'Live Restyle', badge: 'PRIVATE' },
      { label: 'AI Agent', badge: 'PLAYGROUND' },
    ],
  },
];
