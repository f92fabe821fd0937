import type { DriveConnector } from '@/features/drives/connector-api';

/** The connector of folder in-1 on the local disk, as GET /api/drives/in-1/connector answers. */
export const localConnector = (figures: Partial<DriveConnector> = {}): DriveConnector => ({
  folder: 'in-1',
  kind: 'local',
  where: 'the local folder',
  bucket: '',
  prefix: '',
  endpoint_url: '',
  region: '',
  folder_id: '',
  credentials: '',
  can_manage: true,
  ...figures,
});
