import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';

import { apiClient } from '@/lib/api-client';
import type { Drive, DriveFile, DriveRole } from '@/types/api';

export const driveKeys = {
  all: ['drives'] as const,
  list: () => [...driveKeys.all, 'list'] as const,
  files: (folder: string) => [...driveKeys.all, 'files', folder] as const,
};

const filesUrl = (folder: string) => `/api/drives/${encodeURIComponent(folder)}/files`;

export const getDrives = (): Promise<Drive[]> => apiClient.get<Drive[]>('/api/drives/');
export const getDriveFiles = (folder: string): Promise<DriveFile[]> => apiClient.get<DriveFile[]>(filesUrl(folder));

export const drivesQueryOptions = () =>
  queryOptions({ queryKey: driveKeys.list(), queryFn: getDrives, staleTime: 5 * 60 * 1000 });

export const driveFilesQueryOptions = (folder: string) =>
  queryOptions({ queryKey: driveKeys.files(folder), queryFn: () => getDriveFiles(folder) });

export function useDrives() {
  return useQuery(drivesQueryOptions());
}

/** A tool's drives in the backend's order, optionally only one role. */
export function useToolDrives(tool: string, role?: DriveRole): Drive[] {
  const drives = useDrives();
  return (drives.data ?? []).filter((drive) => drive.tool === tool && (!role || drive.role === role));
}

export function useDriveFiles(folder: string) {
  return useQuery(driveFilesQueryOptions(folder));
}

/** One request per file: the endpoint takes a single multipart field "file". */
export function uploadDriveFile(folder: string, file: File): Promise<DriveFile> {
  const form = new FormData();
  form.append('file', file);
  return apiClient.post<DriveFile>(filesUrl(folder), form);
}

export function deleteDriveFile(folder: string, id: string): Promise<null> {
  return apiClient.delete<null>(`${filesUrl(folder)}/${encodeURIComponent(id)}`);
}

export function useUploadDriveFiles(folder: string) {
  const queryClient = useQueryClient();
  return useMutation({
    // Sequential: a failure names the file, and the server is not flooded with parallel uploads.
    mutationFn: async (files: File[]) => {
      const uploaded: DriveFile[] = [];
      for (const file of files) {
        try {
          uploaded.push(await uploadDriveFile(folder, file));
        } catch (error) {
          const reason = error instanceof Error ? error.message : String(error);
          throw new Error(`Upload of ${file.name} failed: ${reason}`);
        }
      }
      return uploaded;
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: driveKeys.files(folder) }),
  });
}

export function useDeleteDriveFile(folder: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => deleteDriveFile(folder, id),
    onSettled: () => queryClient.invalidateQueries({ queryKey: driveKeys.files(folder) }),
  });
}
