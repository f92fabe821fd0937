import { screen, within } from '@testing-library/react';

import { TOOL_PAGES } from '@/lib/tools';
import { catalogue } from '@/testing/catalogue';
import { makeJob, recentJobs, recentJobsUrl, renderTool } from '@/testing/tool-mocks';

// Every page mounts, lazily, with its own queries: give the slowest machine room.
jest.setTimeout(60000);

// jsdom draws no canvas (Editorial Product's stage): the page copes with no 2D context.
beforeEach(() => {
  jest.spyOn(HTMLCanvasElement.prototype, 'getContext').mockReturnValue(null);
});

const REASON = 'The image could not be fetched.';
const pages = catalogue().filter((tool) => tool.route && !tool.locked && TOOL_PAGES[tool.slug]);

test('there is a page to check for every routed tool', () => {
  expect(pages.length).toBeGreaterThanOrEqual(17);
});

test.each(pages.map((tool) => [tool.slug, tool.route!] as const))(
  "the %s page lists the tool's jobs with their status, the failure's reason and the outputs",
  async (slug, route) => {
    const jobs = [
      makeJob('j1', 'succeeded', { tool: slug, outputs: [{ index: 0, filename: 'result-0.png', content_type: 'image/png', size: 10, sha256: '', url: '/api/jobs/j1/outputs/0' }] }),
      makeJob('j2', 'failed', { tool: `${slug}.generate`, error: { code: 'fetch_failed', message: REASON } }),
    ];
    renderTool(route, { [recentJobsUrl(slug)]: recentJobs(jobs) });

    const log = await screen.findByRole('region', { name: 'Recent jobs' }, { timeout: 10000 });
    const table = await within(log).findByRole('table', { name: 'Recent jobs' });
    expect(within(table).getByText('Succeeded')).toBeInTheDocument();
    expect(within(table).getByRole('link', { name: 'result-0.png' })).toHaveAttribute('href', '/api/jobs/j1/outputs/0');
    expect(within(table).getByText('Failed')).toBeInTheDocument();
    expect(within(table).getByText(REASON)).toBeInTheDocument();
  },
);
