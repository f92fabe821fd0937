import { lazy } from 'react';
import { Route, Routes, matchPath, useLocation } from 'react-router-dom';

import { RequireAuth } from '@/components/auth/require-auth';
import { AppLayout } from '@/components/layout/app-layout';
import { Spinner } from '@/components/ui/spinner';
import { TOOL_PAGES, useTools } from '@/lib/tools';

// One chunk per route keeps the first page small.
const LoginPage = lazy(() => import(/* webpackChunkName: "route-login" */ '@/features/login/login-page').then((m) => ({ default: m.LoginPage })));
const HomePage = lazy(() => import(/* webpackChunkName: "route-home" */ '@/features/home/home-page').then((m) => ({ default: m.HomePage })));
// The tools whose own page has not landed yet share this frame (one chunk).
const ToolFramePage = lazy(() =>
  import(/* webpackChunkName: "route-tool-frame" */ '@/features/tool-frame/tool-frame-page').then((m) => ({ default: m.ToolFramePage })),
);
const DriveBrowserPage = lazy(() =>
  import(/* webpackChunkName: "route-drive" */ '@/features/drives/drive-browser-page').then((m) => ({ default: m.DriveBrowserPage })),
);
// The coming-soon pages (Re-Pattern, Reface, Stylist Web) share one chunk.
const ComingSoonPage = lazy(() =>
  import(/* webpackChunkName: "route-coming-soon" */ '@/features/coming-soon/coming-soon-page').then((m) => ({ default: m.ComingSoonRoute })),
);
const JobsPage = lazy(() => import(/* webpackChunkName: "route-jobs" */ '@/features/jobs/jobs-page').then((m) => ({ default: m.JobsPage })));
const SettingsPage = lazy(() =>
  import(/* webpackChunkName: "route-settings" */ '@/features/settings/settings-page').then((m) => ({ default: m.SettingsPage })),
);
const NotFoundPage = lazy(() =>
  import(/* webpackChunkName: "route-not-found" */ '@/features/not-found/not-found-page').then((m) => ({ default: m.NotFoundPage })),
);

/** Opt in to React Router v7 behaviour now, shared by the browser and test routers. */
export const ROUTER_FUTURE = { v7_startTransition: true, v7_relativeSplatPath: true } as const;

/**
 * Every other path of a signed-in partner: the tool whose catalogue route it is, else the 404.
 * The catalogue decides which routes exist, so nothing is said until it answers.
 */
function CatalogueRoute() {
  const { pathname } = useLocation();
  const tools = useTools();
  if (tools.isPending) return <Spinner />;
  const tool = (tools.data ?? []).find((row) => row.route && matchPath({ path: row.route, end: true }, pathname));
  if (!tool) return <NotFoundPage />;
  const Page = TOOL_PAGES[tool.slug];
  // keyed by slug: moving between tools remounts the page with the new tool's state
  return Page ? <Page key={tool.slug} /> : <ToolFramePage key={tool.slug} slug={tool.slug} />;
}

export function AppRoutes() {
  return (
    <Routes>
      <Route element={<AppLayout />}>
        <Route path="/login" element={<LoginPage />} />
        <Route element={<RequireAuth />}>
          <Route index element={<HomePage />} />
          <Route path="/jobs" element={<JobsPage />} />
          <Route path="/settings" element={<SettingsPage />} />
          <Route path="/drives/:folder" element={<DriveBrowserPage />} />
          <Route path="/re-pattern" element={<ComingSoonPage page="re-pattern" />} />
          <Route path="/reface" element={<ComingSoonPage page="reface" />} />
          <Route path="/stylist-web" element={<ComingSoonPage page="stylist-web" />} />
          <Route path="*" element={<CatalogueRoute />} />
        </Route>
      </Route>
    </Routes>
  );
}
