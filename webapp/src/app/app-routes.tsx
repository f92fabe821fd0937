import { lazy } from 'react';
import { Route, Routes } from 'react-router-dom';

import { RequireAuth } from '@/components/auth/require-auth';
import { AppLayout } from '@/components/layout/app-layout';

// One chunk per route keeps the first page small.
const LoginPage = lazy(() =>
  import(/* webpackChunkName: "route-login" */ '@/features/login/login-page').then((m) => ({ default: m.LoginPage })),
);
const HomePage = lazy(() =>
  import(/* webpackChunkName: "route-home" */ '@/features/home/home-page').then((m) => ({ default: m.HomePage })),
);
const RePatternPage = lazy(() =>
  import(/* webpackChunkName: "route-re-pattern" */ '@/features/coming-soon/re-pattern-page').then((m) => ({
    default: m.RePatternPage,
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
          <Route path="/re-pattern" element={<RePatternPage />} />
          <Route path="/stylist-web" element={<StylistWebPage />} />
        </Route>
        <Route path="*" element={<NotFoundPage />} />
      </Route>
    </Routes>
  );
}
