import { queryOptions, useQuery } from '@tanstack/react-query';

import { apiClient } from '@/lib/api-client';

/** What a tool's engine can do with one library model (GET /api/models/ `fits`). */
export type ModelFit = { ok: boolean; reason?: string; carry?: string; note?: string; shoes_alone?: boolean };

/** One entry of GET /api/models/: the organisation's model library. */
export type LibraryModel = {
  id: string;
  name: string;
  gender: string;
  height_cm: number;
  image: string;
  /** What the photo shows (face, ears, hands, upper_body, full_body), measured when added. */
  shows?: Record<string, boolean | number>;
  /** Per tool slug (earfit, baghold, flats, remodel). */
  fits?: Record<string, ModelFit>;
};

export const libraryModelKeys = {
  all: ['library-models'] as const,
  list: () => [...libraryModelKeys.all, 'list'] as const,
};

export const getLibraryModels = (): Promise<LibraryModel[]> => apiClient.get<LibraryModel[]>('/api/models/');

export const libraryModelsQueryOptions = () =>
  queryOptions({ queryKey: libraryModelKeys.list(), queryFn: getLibraryModels, staleTime: 5 * 60 * 1000 });

export function useLibraryModels({ enabled = true }: { enabled?: boolean } = {}) {
  return useQuery({ ...libraryModelsQueryOptions(), enabled });
}

/** A model the server has not judged for a tool is left to the engine: it counts as usable. */
export const fitOf = (model: LibraryModel, tool: string): ModelFit => model.fits?.[tool] ?? { ok: true };

export type LibraryFit = {
  /** Models the tool skips, with the reason its engine would refuse them. */
  skipped: { model: LibraryModel; reason: string }[];
  /** Models the tool dresses differently (a bag on the shoulder...), with how. */
  differently: { model: LibraryModel; note: string }[];
  /** Why Run cannot work: the library has models and the tool can use none of them. */
  blocked: string | null;
};

export function libraryFit(models: LibraryModel[], tool: string): LibraryFit {
  const skipped = models.flatMap((model) => {
    const fit = fitOf(model, tool);
    return fit.ok ? [] : [{ model, reason: fit.reason ?? 'Its photo cannot be used by this tool.' }];
  });
  const differently = models.flatMap((model) => {
    const fit = fitOf(model, tool);
    return fit.ok && fit.note ? [{ model, note: fit.note }] : [];
  });
  const blocked =
    models.length > 0 && skipped.length === models.length
      ? `No model of your library can be used: ${skipped.map(({ model, reason }) => `${model.name}: ${reason}`).join(' ')}`
      : null;
  return { skipped, differently, blocked };
}

/** The tool's verdict on the organisation's library, once it is loaded (never asked when not `enabled`). */
export function useLibraryFit(tool: string, { enabled = true }: { enabled?: boolean } = {}): LibraryFit {
  const models = useLibraryModels({ enabled });
  return libraryFit(models.data ?? [], tool);
}
