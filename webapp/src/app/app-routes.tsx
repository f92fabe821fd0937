import { lazy } from 'react';
import { Route, Routes } from 'react-router-dom';

import { RequireAuth } from '@/components/auth/require-auth';
import { AppLayout } from '@/components/layout/app-layout';
import { TOOL_ROUTES } from '@/lib/tools';

// One chunk per route keeps the first page small.
const LoginPage = lazy(() =>
  import(/* webpackChunkName: "route-login" */ '@/features/login/login-page').then((m) => ({ default: m.LoginPage })),
);
const HomePage = lazy(() =>
  import(/* webpackChunkName: "route-home" */ '@/features/home/home-page').then((m) => ({ default: m.HomePage })),
);
// Until each tool's own page lands, every tool route shares this frame (one chunk).
const ToolFramePage = lazy(() =>
  import(/* webpackChunkName: "route-tool-frame" */ '@/features/tool-frame/tool-frame-page').then((m) => ({
    default: m.ToolFramePage,
  })),
);
const DriveBrowserPage = lazy(() =>
  import(/* webpackChunkName: "route-drive" */ '@/features/drives/drive-browser-page').then((m) => ({
    default: m.DriveBrowserPage,
  })),
);
const RePatternPage = lazy(() =>
  import(/* webpackChunkName: "route-re-pattern" */ '@/features/coming-soon/re-pattern-page').then((m) => ({
    default: m.RePatternPage,
  })),
);
const RefacePage = lazy(() =>
  import(/* webpackChunkName: "route-reface" */ '@/features/coming-soon/reface-page').then((m) => ({
    default: m.RefacePage,
  })),
);
const StylistWebPage = lazy(() =>
  import(/* webpackChunkName: "route-stylist-web" */ '@/features/coming-soon/stylist-web-page').then((m) => ({
    default: m.StylistWebPage,
  })),
);
const NotFoundPage = lazy(() =>
  import(/* webpackChunkName: "route-not-found" */ '@/features/not-found/not-found-page').then((m) => ({
    default: m.NotFoundPage,
  })),
);

/** Opt in to React Router v7 behaviour now, shared by the browser and test routers. */
export const ROUTER_FUTURE = { v7_startTransition: true, v7_relativeSplatPath: true } as const;

export function AppRoutes() {
  return (
    <Routes>
      <Route element={<AppLayout />}>
        <Route path="/login" element={<LoginPage />} />
        <Route element={<RequireAuth />}>
          <Route index element={<HomePage />} />
          {TOOL_ROUTES.map(({ path, slug }) => (
            // keyed by slug: moving between tools remounts the frame with the new tool's state
            <Route key={path} path={path} element={<ToolFramePage key={slug} slug={slug} />} />
          ))}
          <Route path="/drives/:folder" element={<DriveBrowserPage />} />
          <Route path="/re-pattern" element={<RePatternPage />} />
          <Route path="/reface" element={<RefacePage />} />
          <Route path="/stylist-web" element={<StylistWebPage />} />
        </Route>
        <Route path="*" element={<NotFoundPage />} />
      </Route>
    </Routes>
  );
}
