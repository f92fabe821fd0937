import { catalogue } from '@/testing/catalogue';
import { type MockResponse, type MockRoutes, mockFetch, signedIn } from '@/testing/mock-fetch';
import { renderApp } from '@/testing/render-app';
import type { Drive, Job, JobStatus } from '@/types/api';

const drive = (tool: string, role: Drive['role'], category: Drive['category'] = null): Drive => ({
  tool,
  role,
  category,
  label: `${tool} ${category ?? role}`,
  folder: `${tool}-${category ?? role}`,
  kind: 'local',
  url: `/drives/${tool}-${category ?? role}`,
});

export const DRIVES: Drive[] = [
  ...['recolor', 'refabric', 'reshape', 'earfit', 'baghold', 'spinview', 'remodel'].flatMap((tool) => [drive(tool, 'input'), drive(tool, 'output')]),
  ...(['shoes', 'bottom', 'top', 'overlayer'] as const).map((category) => drive('flats', 'input', category)),
  drive('flats', 'output'),
];

/** What every tool page asks for on load, plus the test's own routes. */
export function toolPageRoutes(extra: MockRoutes = {}): MockRoutes {
  return {
    'GET /api/me/': signedIn(),
    'GET /api/tools/': { body: catalogue() },
    'GET /api/queues/': { body: [] },
    'GET /api/drives/': { body: DRIVES },
    'GET /api/models/': { body: [{ id: 'ana', name: 'Ana', gender: 'female', height_cm: 176, image: '/api/models/ana/photo' }] },
    // Every tool page's recent jobs and activity log: none yet, unless the test says otherwise.
    ...Object.fromEntries(catalogue().map((tool) => [recentJobsUrl(tool.slug), recentJobs([])])),
    ...Object.fromEntries(catalogue().map((tool) => [`GET /api/activity/?tool=${tool.slug}&limit=5`, { body: [] }])),
    ...extra,
  };
}

/** Opens a tool page at `path` with what every tool page asks for and the test's own routes; the calls made. */
export function renderTool(path: string, extra: MockRoutes = {}) {
  const calls = mockFetch(toolPageRoutes(extra));
  renderApp(path);
  return calls;
}

export function makeJob(id: string, status: JobStatus, figures: Partial<Job> = {}): Job {
  return {
    id,
    tool: 'recolor',
    status,
    progress: status === 'succeeded' ? 100 : 0,
    queue_position: null,
    eta_seconds: null,
    input: {},
    error: null,
    // a job waiting for its first run has made no attempt yet
    attempts: status === 'queued' ? 0 : 1,
    batch_id: 'b1',
    created_at: '2025-05-01T10:00:00Z',
    started_at: null,
    finished_at: null,
    engine: '',
    tier: '',
    outputs: [],
    ...figures,
  };
}

export const accepted = (body: unknown): MockResponse => ({ status: 202, body });

/** The answer of a batch list, GET /api/jobs/?batch=…&limit=100. */
export const batchList = (jobs: Job[]): MockResponse => ({ body: { count: jobs.length, results: jobs } });

export const batchUrl = (batchId = 'b1') => `GET /api/jobs/?batch=${batchId}&limit=100`;

/** A card tool's Run answered with a batch of `jobs`, and that batch's list as it is followed. */
export const batchRun = (post: string, jobs: Job[] = []): MockRoutes => ({
  [`POST ${post}`]: accepted({ batch_id: 'b1', count: jobs.length, jobs }),
  [batchUrl()]: batchList(jobs),
});

/** The tool page's recent jobs, GET /api/jobs/?tool=…&limit=5 (newest first). */
export const recentJobsUrl = (tool: string) => `GET /api/jobs/?tool=${tool}&limit=5`;

export const recentJobs = (jobs: Job[]): MockResponse => ({ body: { count: jobs.length, next: null, previous: null, results: jobs } });

export const bodyOf = (call: { init: RequestInit }) => JSON.parse(String(call.init.body));

/**
 * A job the page submits to `post` (answered with it queued) and then polls: each poll answers
 * the next of `states`, the last one again once they are used up. The job is `states[0]`'s.
 */
export function followedJob(post: string, states: Job[]): MockRoutes {
  const { id, tool } = states[0];
  let polls = 0;
  return {
    [`POST ${post}`]: accepted(makeJob(id, 'queued', { tool })),
    [`GET /api/jobs/${id}/`]: () => ({ body: states[Math.min(polls++, states.length - 1)] }),
  };
}
