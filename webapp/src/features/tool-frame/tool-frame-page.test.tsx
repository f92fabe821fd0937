import { screen, within } from '@testing-library/react';

import { TOOL_ROUTES } from '@/lib/tools';
import { catalogue, queueRow } from '@/testing/catalogue';
import { mockFetch, signedIn } from '@/testing/mock-fetch';
import { ToolFramePage } from '@/features/tool-frame/tool-frame-page';
import { renderApp, renderComponent } from '@/testing/render-app';

const statusBar = () => screen.getByRole('group', { name: 'Tool status' });

function mockTool(queues = [queueRow('recolor')], tools = catalogue()) {
  return mockFetch({
    'GET /api/me/': signedIn(),
    'GET /api/tools/': { body: tools },
    'GET /api/queues/': { body: queues },
  });
}

test('a tool without its own page yet shows the header, System Ready with queue 0 and a dash, and the upcoming-workspace note', async () => {
  // every spec route has its own page now; the frame stays for tools the catalogue adds later
  mockTool([queueRow('editorial')]);
  renderComponent(<ToolFramePage slug="editorial" />);

  expect(await screen.findByRole('heading', { level: 1, name: 'Editorial V1.0' })).toBeInTheDocument();
  expect(await screen.findByText('System Ready')).toBeInTheDocument();
  expect(within(statusBar()).getByText('Queue').nextElementSibling).toHaveTextContent('0');
  expect(within(statusBar()).getByText('ETA').nextElementSibling).toHaveTextContent('—');
  expect(screen.getByText("This tool's workspace opens in an upcoming release.")).toBeInTheDocument();
  // no fake controls on the frame
  expect(within(screen.getByRole('article')).queryByRole('button')).not.toBeInTheDocument();
});

test('queued and running jobs show Processing, the queue count and the ETA from /api/queues/', async () => {
  mockTool([queueRow('recolor', { queued: 2, running: 1, eta_seconds: 130 }), queueRow('refabric')]);
  renderApp('/recoloring');

  expect(await screen.findByText('Processing')).toBeInTheDocument();
  expect(within(statusBar()).getByText('Queue').nextElementSibling).toHaveTextContent('3');
  expect(within(statusBar()).getByText('ETA').nextElementSibling).toHaveTextContent('~2m');
});

test.each(TOOL_ROUTES.map((route) => [route.path, route.name]))('%s is the %s tool page', async (path, name) => {
  mockTool([]);
  renderApp(path);

  expect(await screen.findByRole('heading', { level: 1, name: new RegExp(`^${name}`) })).toBeInTheDocument();
  expect(screen.getByText('System Ready')).toBeInTheDocument();
});

test('a tool the organisation may not open says so instead', async () => {
  mockTool([], catalogue({ recolor: { locked: true } }));
  renderApp('/recoloring');

  expect(await screen.findByRole('alert')).toHaveTextContent('This tool is not enabled for your organisation.');
});
