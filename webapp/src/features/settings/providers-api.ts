import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';

import { apiClient } from '@/lib/api-client';

export type ProviderKind = 'fashn' | 'fal' | 'vertex' | 'replicate' | 'openai';

/** One provider account of the organisation. The key itself never comes back: only its last 4. */
export type ProviderAccount = {
  id: string;
  kind: ProviderKind;
  label: string;
  key_last4: string;
  base_url: string;
  models: Record<string, string>;
  fallback_local: boolean;
  /** The tools it was limited to; empty for every tool of its kind. */
  tools: string[];
  /** The tools it runs: `tools`, or every tool its kind can run. */
  serves: string[];
  created_at: string;
  updated_at: string;
};

export type ProviderKindInfo = { kind: ProviderKind; label: string; default_base_url: string; tools: string[] };
export type ProviderCatalogue = { can_manage: boolean; kinds: ProviderKindInfo[] };
export type ConnectionAnswer = { ok: boolean; message: string };

export type ProviderAccountInput = {
  kind: ProviderKind;
  label: string;
  api_key: string;
  base_url: string;
  models: Record<string, string>;
  fallback_local: boolean;
  tools: string[];
};
/** A change: the kind is fixed, and the key is only sent to replace it. */
export type ProviderAccountPatch = Partial<Omit<ProviderAccountInput, 'kind'>>;

export const providerKeys = {
  all: ['providers'] as const,
  list: () => [...providerKeys.all, 'list'] as const,
  catalogue: () => [...providerKeys.all, 'catalogue'] as const,
};

const accountUrl = (id: string) => `/api/providers/${encodeURIComponent(id)}/`;

export const getProviderAccounts = () => apiClient.get<ProviderAccount[]>('/api/providers/');
export const getProviderCatalogue = () => apiClient.get<ProviderCatalogue>('/api/providers/catalogue/');

export const providerAccountsQueryOptions = () =>
  queryOptions({ queryKey: providerKeys.list(), queryFn: getProviderAccounts });

export const providerCatalogueQueryOptions = () =>
  queryOptions({ queryKey: providerKeys.catalogue(), queryFn: getProviderCatalogue, staleTime: 5 * 60 * 1000 });

export function useProviderAccounts() {
  return useQuery(providerAccountsQueryOptions());
}

export function useProviderCatalogue() {
  return useQuery(providerCatalogueQueryOptions());
}

function useInvalidatingMutation<TVariables, TData>(mutationFn: (variables: TVariables) => Promise<TData>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: providerKeys.list() }),
  });
}

export function useCreateProviderAccount() {
  return useInvalidatingMutation((input: ProviderAccountInput) => apiClient.post<ProviderAccount>('/api/providers/', input));
}

export function useUpdateProviderAccount() {
  return useInvalidatingMutation(({ id, patch }: { id: string; patch: ProviderAccountPatch }) =>
    apiClient.patch<ProviderAccount>(accountUrl(id), patch),
  );
}

export function useDeleteProviderAccount() {
  return useInvalidatingMutation((id: string) => apiClient.delete<null>(accountUrl(id)));
}

/** "Test connection": nothing to invalidate, the answer is shown where it was asked. */
export function useTestProviderAccount() {
  return useMutation({
    mutationFn: (id: string) => apiClient.post<ConnectionAnswer>(`${accountUrl(id)}test/`),
  });
}

export type UsageFigures = { jobs: number; succeeded: number; failed: number; seconds: number };
export type Usage = {
  month: string;
  start: string;
  end: string;
  rows: (UsageFigures & { tool: string; provider: string })[];
  tools: (UsageFigures & { tool: string })[];
  providers: (UsageFigures & { provider: string })[];
  total: UsageFigures;
};

export const usageKeys = {
  all: ['usage'] as const,
  month: (month: string) => [...usageKeys.all, month] as const,
};

/** GET /api/usage/?month=YYYY-MM: the organisation's jobs of a month per tool and provider. */
export const getUsage = (month: string) => apiClient.get<Usage>(`/api/usage/?month=${encodeURIComponent(month)}`);

export const usageQueryOptions = (month: string) => queryOptions({ queryKey: usageKeys.month(month), queryFn: () => getUsage(month) });

export function useUsage(month: string) {
  return useQuery(usageQueryOptions(month));
}
