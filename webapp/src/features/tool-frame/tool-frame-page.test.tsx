import { screen, within } from '@testing-library/react';

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

test('queued and running jobs show Processing, the queue count and when that work is done', async () => {
  // /api/queues/ gives the ETA of a job sent now: the backlog (our three jobs) plus one more.
  mockTool([queueRow('recolor', { queued: 2, running: 1, avg_seconds: 40, eta_seconds: 160 }), queueRow('refabric')]);
  renderApp('/recoloring');

  expect(await screen.findByText('Processing')).toBeInTheDocument();
  expect(within(statusBar()).getByText('Queue').nextElementSibling).toHaveTextContent('3');
  expect(within(statusBar()).getByText('ETA').nextElementSibling).toHaveTextContent('~2m');
});

const TOOL_ROUTES = catalogue().flatMap((tool) => (tool.route ? [[tool.route, tool.name]] : []));

test.each(TOOL_ROUTES)('%s is the %s tool page', async (path, name) => {
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

test('every tool page shows the Examples gallery the catalogue lists for it', async () => {
  const examples = [1, 2, 3].map((n) => ({ src: `/static/tools/examples/recolor/${n}.jpg`, alt: `Recolor example ${n}` }));
  mockTool([], catalogue({ recolor: { examples } }));
  renderApp('/recoloring');

  const gallery = await screen.findByRole('region', { name: 'Examples' });
  expect(within(gallery).getAllByRole('img').map((img) => img.getAttribute('src'))).toEqual(examples.map((e) => e.src));
  expect(within(gallery).getByRole('button', { name: 'Expand Recolor example 2' })).toBeInTheDocument();
});

test('a locked tool shows no gallery', async () => {
  const examples = [{ src: '/static/tools/examples/refabric/1.jpg', alt: 'Refabric example' }];
  mockTool([], catalogue({ refabric: { examples, locked: true } }));
  renderApp('/refabric');

  expect(await screen.findByRole('alert')).toHaveTextContent('This tool is not enabled for your organisation.');
  expect(screen.queryByRole('region', { name: 'Examples' })).not.toBeInTheDocument();
});

test('the routes are the catalogue\'s: a tool served at another path opens there, and its old path is the 404', async () => {
  jest.spyOn(console, 'error').mockImplementation(() => undefined);
  mockTool([], catalogue({ recolor: { route: '/recolor-studio' } }));
  const first = renderApp('/recolor-studio');
  expect(await screen.findByRole('heading', { level: 1, name: /^Recolor/ })).toBeInTheDocument();
  first.unmount();

  renderApp('/recoloring');
  expect(await screen.findByRole('heading', { name: '404' })).toBeInTheDocument();
});

test('a catalogue tool without a page of its own gets the tool frame', async () => {
  mockTool([], catalogue({ pattern: { locked: false, route: '/pattern-preview', badge: 'Beta' } }));
  renderApp('/pattern-preview');

  expect(await screen.findByRole('heading', { level: 1, name: 'Pattern Beta' })).toBeInTheDocument();
  expect(screen.getByText("This tool's workspace opens in an upcoming release.")).toBeInTheDocument();
});

test('while the catalogue loads a tool route shows the loading state, never the 404', async () => {
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  mockTool([]);
  const answered = globalThis.fetch;
  globalThis.fetch = (async (...args: Parameters<typeof fetch>) => {
    if (String(args[0]) === '/api/tools/') await gate;
    return answered(...args);
  }) as typeof fetch;
  renderApp('/recoloring');

  expect(await screen.findByRole('status', { name: 'Loading' })).toBeInTheDocument();
  expect(screen.queryByRole('heading', { name: '404' })).not.toBeInTheDocument();
  release();
  expect(await screen.findByRole('heading', { level: 1, name: /^Recolor/ })).toBeInTheDocument();
});
