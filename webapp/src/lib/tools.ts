import { queryOptions, useQuery } from '@tanstack/react-query';
import { type ComponentType, type LazyExoticComponent, lazy } from 'react';

import { apiClient } from '@/lib/api-client';
import type { Tool } from '@/types/api';

export const toolKeys = {
  all: ['tools'] as const,
  list: () => [...toolKeys.all, 'list'] as const,
};

/**
 * GET /api/tools/: the catalogue, in its order. It drives the navigation bar (nav_group,
 * nav_label), the tool routes (route) and the pages' choice lists (choices).
 */
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

/** The allowed values of one choice field of a tool's input (its API name), in the server's order. */
export function useToolChoices(slug: string, field: string): string[] {
  return useToolsBySlug().get(slug)?.choices[field] ?? [];
}

/** A tool can be opened when the catalogue has it unlocked and it has a page. */
export function canOpen<T extends Pick<Tool, 'locked' | 'route'>>(tool: T): tool is T & { route: string } {
  return !tool.locked && Boolean(tool.route);
}

type Page = LazyExoticComponent<ComponentType>;

// Each tool's own page is its own chunk.
const page = <K extends string>(load: () => Promise<Record<K, ComponentType>>, name: K): Page =>
  lazy(() => load().then((m) => ({ default: m[name] })));

/** The page of each tool by catalogue slug; the route it answers on comes from the catalogue. */
export const TOOL_PAGES: Record<string, Page> = {
  recolor: page(() => import(/* webpackChunkName: "route-recolor" */ '@/features/recolor/recolor-page'), 'RecolorPage'),
  refabric: page(() => import(/* webpackChunkName: "route-refabric" */ '@/features/refabric/refabric-page'), 'RefabricPage'),
  reshape: page(() => import(/* webpackChunkName: "route-reshape" */ '@/features/reshape/reshape-page'), 'ReshapePage'),
  earfit: page(() => import(/* webpackChunkName: "route-earfit" */ '@/features/earfit/earfit-page'), 'EarfitPage'),
  baghold: page(() => import(/* webpackChunkName: "route-baghold" */ '@/features/baghold/baghold-page'), 'BagholdPage'),
  restyle: page(() => import(/* webpackChunkName: "route-restyle" */ '@/features/restyle/restyle-page'), 'RestylePage'),
  'virtual-try-on': page(() => import(/* webpackChunkName: "route-virtual-try-on" */ '@/features/virtual-try-on/virtual-try-on-page'), 'VirtualTryOnPage'),
  'ecommerce-asset': page(() => import(/* webpackChunkName: "route-ecommerce-asset" */ '@/features/ecommerce-asset/ecommerce-asset-page'), 'EcommerceAssetPage'),
  'garment-integration': page(
    () => import(/* webpackChunkName: "route-garment-integration" */ '@/features/garment-integration/garment-integration-page'),
    'GarmentIntegrationPage',
  ),
  rebody: page(() => import(/* webpackChunkName: "route-rebody" */ '@/features/rebody/rebody-page'), 'RebodyPage'),
  spinview: page(() => import(/* webpackChunkName: "route-spinview" */ '@/features/spinview/spinview-page'), 'SpinviewPage'),
  flats: page(() => import(/* webpackChunkName: "route-flats" */ '@/features/flats/flats-page'), 'FlatsPage'),
  remodel: page(() => import(/* webpackChunkName: "route-remodel" */ '@/features/remodel/remodel-page'), 'RemodelPage'),
  editorial: page(() => import(/* webpackChunkName: "route-editorial" */ '@/features/editorial/editorial-page'), 'EditorialPage'),
  tonelab: page(() => import(/* webpackChunkName: "route-tonelab" */ '@/features/tonelab/tonelab-page'), 'TonelabPage'),
  'editorial-product': page(
    () => import(/* webpackChunkName: "route-editorial-product" */ '@/features/editorial-product/editorial-product-page'),
    'EditorialProductPage',
  ),
  'open-lab': page(() => import(/* webpackChunkName: "route-open-lab" */ '@/features/open-lab/open-lab-page'), 'OpenLabPage'),
  'tech-pack': page(() => import(/* webpackChunkName: "route-tech-pack" */ '@/features/tech-pack/tech-pack-page'), 'TechPackPage'),
  'model-swap': page(() => import(/* webpackChunkName: "route-model-swapper" */ '@/features/model-swapper/model-swapper-page'), 'ModelSwapperPage'),
};
