import type { components } from './openapi';

/** The OpenAPI schema's component `name` (./openapi.d.ts, generated: npm run api:types). */
export type Schema<name extends keyof components['schemas']> = components['schemas'][name];

export type Organization = Schema<'Organization'>;

/** Body of GET /api/me/ for a signed-in user. */
export type Me = Schema<'MeOutput'>;

/** Error body shape shared by every backend endpoint. */
export type ApiErrorBody = {
  error: string;
  message: string;
  fields?: Record<string, string[] | string>;
};

export type ToolCategory = 'editorial' | 'ecommerce' | 'design' | 'commercial' | 'playground';
export type ToolBadge = 'V1.0' | 'V2.0' | 'Beta' | 'Locked' | 'Private' | 'Playground';
export type ToolAccess = 'open' | 'locked' | 'private';
/** The navigation bar's group: '' for the trailing untitled group, null when not in the bar. */
export type ToolNavGroup = 'EDITORIAL' | 'ECOMMERCE' | 'DESIGN' | '';

/** One entry of GET /api/tools/. */
export type Tool = {
  slug: string;
  name: string;
  category: ToolCategory;
  route: string | null;
  badge: ToolBadge;
  access: ToolAccess;
  /** True when this organisation may not open the tool. */
  locked: boolean;
  /** True when the tool's engine is installed. */
  available: boolean;
  eta_text: string;
  /** The page's Examples gallery: fixed renders of the tool's engine. */
  examples: ToolExample[];
  nav_group: ToolNavGroup | null;
  /** The entry's text in the navigation bar. */
  nav_label: string;
  /** Per choice field of the tool's input (its API name), the allowed values in the server's order. */
  choices: Record<string, string[]>;
};

export type ToolExample = Schema<'Example'>;

/** One entry of GET /api/queues/. */
export type ToolQueue = Schema<'QueueListOutput'>;

export type JobStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'canceled';

export type JobOutput = Schema<'JobOutput'>;

/** GET /api/jobs/{id}/ (the schema's `tier` is text: here, its three values). */
export type Job = Omit<Schema<'Job'>, 'tier'> & {
  /** `studio` for a provider, `preview` for the local engine of a generative tool, '' for a classical tool. */
  readonly tier: JobTier;
};

export type JobTier = 'studio' | 'preview' | '';

export type ActivityStatus = 'Processing' | 'Success' | 'Error';

/** One entry of GET /api/activity/. */
export type ActivityEntry = {
  id: number;
  timestamp: string;
  tool: string;
  action: string;
  status: ActivityStatus;
  details: string;
  job_id: string | null;
  /** What made the job's result, as the job says (`local`, `fashn:tryon-v1.6`...); "" without a job. */
  engine: string;
  tier: 'studio' | 'preview' | '';
};

export type DriveRole = 'input' | 'output';
export type DriveKind = 'local' | 'google' | 's3';

/** One entry of GET /api/drives/. */
export type Drive = {
  tool: string;
  role: DriveRole;
  category: 'shoes' | 'bottom' | 'top' | 'overlayer' | null;
  label: string;
  folder: string;
  kind: DriveKind;
  /** Web link; for local drives "/drives/<folder>". */
  url: string;
};

/** One entry of GET /api/drives/{folder}/files. */
export type DriveFile = Schema<'DriveFile'>;
