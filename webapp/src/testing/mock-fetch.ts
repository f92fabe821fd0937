/**
 * Minimal fetch double. jsdom has no fetch, and the network is the browser boundary, so tests
 * describe responses by method + path and inspect the recorded calls.
 */
export type MockResponse = { status?: number; body?: unknown };
export type MockRoutes = Record<string, MockResponse | (() => MockResponse)>;
export type RecordedCall = { method: string; url: string; init: RequestInit; headers: Record<string, string> };

function toResponse({ status = 200, body }: MockResponse): Response {
  const text = body === undefined ? '' : JSON.stringify(body);
  return {
    ok: status >= 200 && status < 300,
    status,
    text: async () => text,
    json: async () => JSON.parse(text),
  } as Response;
}

/** Installs a fetch mock keyed by "METHOD /path"; unknown requests fail the test loudly. */
export function mockFetch(routes: MockRoutes): RecordedCall[] {
  const calls: RecordedCall[] = [];
  const fetchMock = jest.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = String(input);
    const method = (init.method ?? 'GET').toUpperCase();
    calls.push({ method, url, init, headers: { ...(init.headers as Record<string, string>) } });
    const route = routes[`${method} ${url}`];
    if (!route) throw new Error(`Unmocked request: ${method} ${url}`);
    return toResponse(typeof route === 'function' ? route() : route);
  });
  globalThis.fetch = fetchMock as unknown as typeof fetch;
  return calls;
}

export const signedIn = (email = 'ana@maison.example'): MockResponse => ({
  status: 200,
  body: { email, organization: { id: 1, name: 'Maison' }, is_staff: false },
});

export const anonymous: MockResponse = {
  status: 403,
  body: { error: 'not_authenticated', message: 'Authentication credentials were not provided.' },
};
