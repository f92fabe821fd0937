import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import { MemoryRouter, type MemoryRouterProps, type NavigationType, useLocation, useNavigationType } from 'react-router-dom';

import { AppRoutes, ROUTER_FUTURE } from '@/app/app-routes';

type InitialEntry = NonNullable<MemoryRouterProps['initialEntries']>[number];
type RouterSnapshot = { location: ReturnType<typeof useLocation>; navigationType: NavigationType };

/** Exposes the router's current location and how it was reached to assertions. */
function RouterProbe({ onChange }: { onChange: (snapshot: RouterSnapshot) => void }) {
  onChange({ location: useLocation(), navigationType: useNavigationType() });
  return null;
}

/** Renders the whole app at `route` with a fresh QueryClient that never retries. */
export function renderApp(route: InitialEntry = '/') {
  const queryClient = new QueryClient({
    defaultOptions: { queries: { retry: false }, mutations: { retry: false } },
  });
  let snapshot: RouterSnapshot | null = null;
  const result = render(
    <QueryClientProvider client={queryClient}>
      <MemoryRouter initialEntries={[route]} future={ROUTER_FUTURE}>
        <AppRoutes />
        <RouterProbe onChange={(value) => (snapshot = value)} />
      </MemoryRouter>
    </QueryClientProvider>,
  );
  return {
    ...result,
    queryClient,
    getRouter: (): RouterSnapshot => {
      if (!snapshot) throw new Error('Router has not rendered');
      return snapshot;
    },
  };
}
