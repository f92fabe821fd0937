/**
 * Returns `path` when it is a same-origin absolute path, otherwise '/'.
 * `//host` and `/\host` are rejected because browsers treat them as other origins.
 */
export function safeInternalPath(path: string | null | undefined): string {
  if (!path || !path.startsWith('/') || path.startsWith('//') || path.startsWith('/\\')) return '/';
  return path;
}
