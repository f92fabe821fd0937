import { queryOptions, useQuery } from '@tanstack/react-query';

import { apiClient } from '@/lib/api-client';
import type { ToolQueue } from '@/types/api';

export const queueKeys = {
  all: ['queues'] as const,
  list: () => [...queueKeys.all, 'list'] as const,
};

export const getQueues = (): Promise<ToolQueue[]> => apiClient.get<ToolQueue[]>('/api/queues/');

// Queue figures move as jobs start and finish; a short poll keeps the status bar honest.
export const QUEUE_POLL_MS = 5000;

export const queuesQueryOptions = () =>
  queryOptions({
    queryKey: queueKeys.list(),
    queryFn: getQueues,
    refetchInterval: QUEUE_POLL_MS,
  });

/** This organisation's queue figures for one tool; undefined for tools without an engine. */
export function useToolQueue(slug: string): { queue: ToolQueue | undefined; isError: boolean } {
  const queues = useQuery(queuesQueryOptions());
  return { queue: queues.data?.find((row) => row.tool === slug), isError: queues.isError };
}
