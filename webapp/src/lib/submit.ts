import { useMutation, useQueryClient } from '@tanstack/react-query';

import { activityKeys } from '@/lib/activity';
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
