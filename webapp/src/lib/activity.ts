import { queryOptions, useQuery } from '@tanstack/react-query';

import { apiClient } from '@/lib/api-client';
import type { ActivityEntry } from '@/types/api';

/** The activity log shows the last 5 entries (spec part 1, §9). */
export const ACTIVITY_LIMIT = 5;

export const activityKeys = {
  all: ['activity'] as const,
  list: (tool: string) => [...activityKeys.all, 'list', tool] as const,
};

export const getActivity = (tool: string): Promise<ActivityEntry[]> =>
  apiClient.get<ActivityEntry[]>(`/api/activity/?tool=${encodeURIComponent(tool)}&limit=${ACTIVITY_LIMIT}`);

export const activityQueryOptions = (tool: string) =>
  queryOptions({
    queryKey: activityKeys.list(tool),
    queryFn: () => getActivity(tool),
    refetchInterval: 5000,
  });

export function useActivity(tool: string) {
  return useQuery(activityQueryOptions(tool));
}
