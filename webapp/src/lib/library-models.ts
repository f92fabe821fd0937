import { queryOptions, useQuery } from '@tanstack/react-query';

import { apiClient } from '@/lib/api-client';

/** One entry of GET /api/models/: the organisation's model library. */
export type LibraryModel = { id: string; name: string; gender: string; height_cm: number; image: string };

export const libraryModelKeys = {
  all: ['library-models'] as const,
  list: () => [...libraryModelKeys.all, 'list'] as const,
};

export const getLibraryModels = (): Promise<LibraryModel[]> => apiClient.get<LibraryModel[]>('/api/models/');

export const libraryModelsQueryOptions = () =>
  queryOptions({ queryKey: libraryModelKeys.list(), queryFn: getLibraryModels, staleTime: 5 * 60 * 1000 });

export function useLibraryModels() {
  return useQuery(libraryModelsQueryOptions());
}
