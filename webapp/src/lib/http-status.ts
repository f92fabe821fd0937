import { ApiError } from '@/lib/api-client';

// The spec's messages quote the response's status text ('Sync failed: {status text}').
const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  408: 'Request Timeout',
  409: 'Conflict',
  413: 'Payload Too Large',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/** The status text of a failed call; a network failure's own message otherwise. */
export function statusText(error: unknown): string {
  if (error instanceof ApiError) return REASONS[error.status] ?? `HTTP ${error.status}`;
  if (error instanceof Error && error.message) return error.message;
  return 'Unknown error';
}

/** The server's explanation, when it gave one beyond the status. */
export function serverMessage(error: unknown): string | null {
  if (error instanceof ApiError && error.message && !error.message.startsWith('Request failed with status')) return error.message;
  return null;
}

/** `cards.<n>.<field>` errors of a card tool's 400, by card index. */
export function cardFieldErrors(error: unknown): Map<number, string[]> {
  const byCard = new Map<number, string[]>();
  if (!(error instanceof ApiError)) return byCard;
  for (const [key, value] of Object.entries(error.fields)) {
    const match = /^cards\.(\d+)\.(.+)$/.exec(key);
    if (!match) continue;
    const index = Number(match[1]);
    const messages = (Array.isArray(value) ? value : [value]).map((message) => `${match[2]}: ${flatten(message)}`);
    byCard.set(index, [...(byCard.get(index) ?? []), ...messages]);
  }
  return byCard;
}

function flatten(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(flatten).join(' ');
  if (value && typeof value === 'object') return Object.values(value).map(flatten).join(' ');
  return String(value);
}
