import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';

import { ApiError, apiClient } from '@/lib/api-client';
import type { Me } from '@/types/api';

export const authKeys = {
  all: ['auth'] as const,
  me: () => [...authKeys.all, 'me'] as const,
};

/** Resolves to the signed-in user, or null for an anonymous visitor. */
export async function getMe(): Promise<Me | null> {
  try {
    return await apiClient.get<Me>('/api/me/');
  } catch (error) {
    if (error instanceof ApiError && (error.status === 401 || error.status === 403)) return null;
    throw error;
  }
}

export const meQueryOptions = () =>
  queryOptions({
    queryKey: authKeys.me(),
    queryFn: getMe,
    staleTime: 5 * 60 * 1000,
  });

export function useMe() {
  return useQuery(meQueryOptions());
}

export function logout(): Promise<unknown> {
  return apiClient.post('/api/auth/logout/');
}

export function useLogout({ onSuccess }: { onSuccess?: () => void } = {}) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: logout,
    onSuccess: () => {
      queryClient.setQueryData(authKeys.me(), null);
      onSuccess?.();
    },
  });
}

/** Location state handed to /login so it can send the visitor back afterwards. */
export type LoginLocationState = { from?: { pathname: string; search?: string; hash?: string } };

export function buildLoginUrl(nextPath: string): string {
  return `/api/auth/login/?next=${encodeURIComponent(nextPath)}`;
}
