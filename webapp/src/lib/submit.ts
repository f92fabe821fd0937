import { useMutation, useQueryClient } from '@tanstack/react-query';

import { activityKeys } from '@/lib/activity';
import { apiClient } from '@/lib/api-client';
import { jobKeys } from '@/lib/jobs';
import { queueKeys } from '@/lib/queues';

/**
 * Every submission of a tool page goes through this mutation. Whatever its answer, the job
 * lists (the job history, the tool pages' recent jobs), the activity logs and the queue figures
 * may have moved, so their queries are invalidated when it settles. Refetching is not awaited:
 * the page shows the answer at once.
 */
export function useSubmit<TVariables, TData>(mutationFn: (variables: TVariables) => Promise<TData>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn,
    onSettled: () => {
      for (const queryKey of [jobKeys.lists(), activityKeys.all, queueKeys.all]) void queryClient.invalidateQueries({ queryKey });
    },
  });
}

/** A tool's POST that answers with its result (the editorial, tech pack and lab tools) as a submission. */
export function usePost<TAnswer, TBody = Record<string, unknown>>(url: string) {
  return useSubmit((body: TBody) => apiClient.post<TAnswer>(url, body));
}
