import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';

import { apiClient } from '@/lib/api-client';
import { driveKeys } from '@/lib/drives';
import type { Schema } from '@/types/api';

/** A drive folder's connector (the schema's `Connector`). Credentials never come back:
 * `credentials` is their masked hint. */
export type DriveConnector = Schema<'Connector'>;

export type S3ConnectorInput = {
  kind: 's3';
  endpoint_url: string;
  region: string;
  bucket: string;
  prefix: string;
  /** Left out to keep the stored keys (same kind only). */
  access_key_id?: string;
  secret_access_key?: string;
};
export type GoogleConnectorInput = { kind: 'google'; folder_id: string; service_account?: string };
export type ConnectorInput = S3ConnectorInput | GoogleConnectorInput;
export type ConnectorTestAnswer = Schema<'DriveConnectionAnswer'>;

export const connectorKeys = {
  all: [...driveKeys.all, 'connector'] as const,
  detail: (folder: string) => [...connectorKeys.all, folder] as const,
};

const connectorUrl = (folder: string) => `/api/drives/${encodeURIComponent(folder)}/connector`;

export const getConnector = (folder: string) => apiClient.get<DriveConnector>(connectorUrl(folder));

export const connectorQueryOptions = (folder: string) =>
  queryOptions({ queryKey: connectorKeys.detail(folder), queryFn: () => getConnector(folder) });

export function useConnector(folder: string) {
  return useQuery(connectorQueryOptions(folder));
}

/** The answer is the connector as it now is; a new or removed one changes where the folder's
 * files come from and what the drive list links to, so those are fetched again. */
function useConnectorMutation<TVariables>(folder: string, mutationFn: (variables: TVariables) => Promise<DriveConnector>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn,
    onSuccess: (connector) => {
      queryClient.setQueryData(connectorKeys.detail(folder), connector);
      return Promise.all([
        queryClient.invalidateQueries({ queryKey: driveKeys.files(folder) }),
        queryClient.invalidateQueries({ queryKey: driveKeys.list() }),
      ]);
    },
  });
}

export function useSetConnector(folder: string) {
  return useConnectorMutation(folder, (input: ConnectorInput) => apiClient.put<DriveConnector>(connectorUrl(folder), input));
}

export function useClearConnector(folder: string) {
  return useConnectorMutation(folder, () => apiClient.delete<DriveConnector>(connectorUrl(folder)));
}

/** "Test connection": nothing to invalidate, the answer is shown where it was asked. */
export function useTestConnector(folder: string) {
  return useMutation({ mutationFn: () => apiClient.post<ConnectorTestAnswer>(`${connectorUrl(folder)}/test`) });
}
