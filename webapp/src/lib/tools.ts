import { queryOptions, useQuery } from '@tanstack/react-query';
import { type ComponentType, type LazyExoticComponent, lazy } from 'react';

import { apiClient } from '@/lib/api-client';
import { pageModules } from '@/lib/page-modules';
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

/*
 * Tool pages are found, not listed. A tool's page is the module
 *
 *     features/<slug>/<slug>-page.tsx
 *
 * named after the tool's catalogue slug (GET /api/tools/), with the page as its default export
 * or as its one export whose name ends in `Page`. Nothing else to add: webpack finds the file
 * (lib/page-modules.ts, one chunk per page), and the router opens it on the route the catalogue
 * gives the slug. A catalogue tool without such a file gets the shared tool frame. The app's own
 * pages (home, jobs, login, settings, not-found, coming-soon, tool-frame) follow the same file
 * names but are imported by app/app-routes.tsx and left out of the search.
 */

/** The slug of a page module's key, `./<slug>/<slug>-page.tsx`. */
export const pageSlug = (key: string): string => key.split('/')[1];

/** The page component of a page module: its default export, else its one `*Page` export. */
export function pageComponent(module: Record<string, unknown>, key: string): ComponentType {
  if (module.default) return module.default as ComponentType;
  const pages = Object.keys(module).filter((name) => name.endsWith('Page'));
  if (pages.length !== 1) {
    throw new Error(`${key}: a tool page module exports its page as default or as its one *Page export (found ${pages.length ? pages.join(', ') : 'none'})`);
  }
  return module[pages[0]] as ComponentType;
}

/** The page of each tool by catalogue slug; the route it answers on comes from the catalogue. */
export const TOOL_PAGES: Record<string, Page> = Object.fromEntries(
  pageModules.keys().map((key) => [pageSlug(key), lazy(() => pageModules.load(key).then((module) => ({ default: pageComponent(module, key) })))]),
);
