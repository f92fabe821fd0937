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

/** Ends the session; the server answers where to go next (the identity provider's logout,
 * which returns to the site origin, or /login). */
export function logout(): Promise<{ redirect?: string }> {
  return apiClient.post<{ redirect?: string }>('/api/auth/logout/');
}

export function useLogout({ onSuccess }: { onSuccess?: (redirect: string) => void } = {}) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: logout,
    onSuccess: (body) => {
      queryClient.setQueryData(authKeys.me(), null);
      onSuccess?.(body?.redirect || '/login');
    },
  });
}

/** Location state handed to /login so it can send the visitor back afterwards. */
export type LoginLocationState = { from?: { pathname: string; search?: string; hash?: string } };

export function buildLoginUrl(nextPath: string): string {
  return `/api/auth/login/?next=${encodeURIComponent(nextPath)}`;
}
