import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import type { ReactElement } from 'react';
import { MemoryRouter, type MemoryRouterProps, type NavigationType, useLocation, useNavigationType } from 'react-router-dom';

import { AppRoutes, ROUTER_FUTURE } from '@/app/app-routes';
import { ToastProvider } from '@/components/ui/toast';

type InitialEntry = NonNullable<MemoryRouterProps['initialEntries']>[number];
type RouterSnapshot = { location: ReturnType<typeof useLocation>; navigationType: NavigationType };

/** Exposes the router's current location and how it was reached to assertions. */
function RouterProbe({ onChange }: { onChange: (snapshot: RouterSnapshot) => void }) {
  onChange({ location: useLocation(), navigationType: useNavigationType() });
  return null;
}

function renderWithProviders(ui: ReactElement, route: InitialEntry) {
  const queryClient = new QueryClient({
    defaultOptions: { queries: { retry: false }, mutations: { retry: false } },
  });
  let snapshot: RouterSnapshot | null = null;
  const result = render(
    <QueryClientProvider client={queryClient}>
      <MemoryRouter initialEntries={[route]} future={ROUTER_FUTURE}>
        {ui}
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

/** Renders the whole app at `route` with a fresh QueryClient that never retries. */
export function renderApp(route: InitialEntry = '/') {
  return renderWithProviders(<AppRoutes />, route);
}

/**
 * Renders one shared component (the tool pages' building blocks) with the same providers the
 * app gives it: a fresh QueryClient, a router and the toast host.
 */
export function renderComponent(ui: ReactElement, route: InitialEntry = '/') {
  return renderWithProviders(<ToastProvider>{ui}</ToastProvider>, route);
}
