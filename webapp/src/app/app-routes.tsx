import { type ComponentType, type LazyExoticComponent, lazy } from 'react';
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
// Each tool's own page is its own chunk.
const named = <K extends string>(load: () => Promise<Record<K, ComponentType>>, name: K) =>
  lazy(() => load().then((m) => ({ default: m[name] })));

const TOOL_PAGES: Record<string, LazyExoticComponent<ComponentType>> = {
  recolor: named(() => import(/* webpackChunkName: "route-recolor" */ '@/features/recolor/recolor-page'), 'RecolorPage'),
  refabric: named(() => import(/* webpackChunkName: "route-refabric" */ '@/features/refabric/refabric-page'), 'RefabricPage'),
  reshape: named(() => import(/* webpackChunkName: "route-reshape" */ '@/features/reshape/reshape-page'), 'ReshapePage'),
  earfit: named(() => import(/* webpackChunkName: "route-earfit" */ '@/features/earfit/earfit-page'), 'EarfitPage'),
  baghold: named(() => import(/* webpackChunkName: "route-baghold" */ '@/features/baghold/baghold-page'), 'BagholdPage'),
  restyle: named(() => import(/* webpackChunkName: "route-restyle" */ '@/features/restyle/restyle-page'), 'RestylePage'),
  'virtual-try-on': named(
    () => import(/* webpackChunkName: "route-virtual-try-on" */ '@/features/virtual-try-on/virtual-try-on-page'),
    'VirtualTryOnPage',
  ),
  'ecommerce-asset': named(
    () => import(/* webpackChunkName: "route-ecommerce-asset" */ '@/features/ecommerce-asset/ecommerce-asset-page'),
    'EcommerceAssetPage',
  ),
  'garment-integration': named(
    () => import(/* webpackChunkName: "route-garment-integration" */ '@/features/garment-integration/garment-integration-page'),
    'GarmentIntegrationPage',
  ),
  rebody: named(() => import(/* webpackChunkName: "route-rebody" */ '@/features/rebody/rebody-page'), 'RebodyPage'),
  spinview: named(() => import(/* webpackChunkName: "route-spinview" */ '@/features/spinview/spinview-page'), 'SpinviewPage'),
  flats: named(() => import(/* webpackChunkName: "route-flats" */ '@/features/flats/flats-page'), 'FlatsPage'),
  remodel: named(() => import(/* webpackChunkName: "route-remodel" */ '@/features/remodel/remodel-page'), 'RemodelPage'),
  editorial: named(() => import(/* webpackChunkName: "route-editorial" */ '@/features/editorial/editorial-page'), 'EditorialPage'),
  tonelab: named(() => import(/* webpackChunkName: "route-tonelab" */ '@/features/tonelab/tonelab-page'), 'TonelabPage'),
  'editorial-product': named(
    () => import(/* webpackChunkName: "route-editorial-product" */ '@/features/editorial-product/editorial-product-page'),
    'EditorialProductPage',
  ),
  'open-lab': named(() => import(/* webpackChunkName: "route-open-lab" */ '@/features/open-lab/open-lab-page'), 'OpenLabPage'),
  'tech-pack': named(() => import(/* webpackChunkName: "route-tech-pack" */ '@/features/tech-pack/tech-pack-page'), 'TechPackPage'),
  'model-swap': named(() => import(/* webpackChunkName: "route-model-swapper" */ '@/features/model-swapper/model-swapper-page'), 'ModelSwapperPage'),
};

// The tools whose own page has not landed yet share this frame (one chunk).
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
const JobsPage = lazy(() =>
  import(/* webpackChunkName: "route-jobs" */ '@/features/jobs/jobs-page').then((m) => ({
    default: m.JobsPage,
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
          {TOOL_ROUTES.map(({ path, slug }) => {
            const Page = TOOL_PAGES[slug];
            // keyed by slug: moving between tools remounts the page with the new tool's state
            return <Route key={path} path={path} element={Page ? <Page key={slug} /> : <ToolFramePage key={slug} slug={slug} />} />;
          })}
          <Route path="/jobs" element={<JobsPage />} />
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
