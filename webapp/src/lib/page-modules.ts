/**
 * The tool pages of the web app, found by file name (the convention is told in lib/tools.ts):
 * `features/<slug>/<slug>-page.tsx`, the app's own pages left out (app/app-routes.tsx imports
 * those). `lazy` mode: webpack makes each page its own chunk and loads it when asked.
 *
 * Jest cannot run webpack contexts; jest.config.js maps this module to
 * testing/page-modules.node.ts, which reads the same folder with the same pattern.
 */
export type PageModule = Record<string, unknown>;

export type PageModules = {
  /** One key per page module, `./<slug>/<slug>-page.tsx`. */
  keys: () => string[];
  load: (key: string) => Promise<PageModule>;
};

// The literals must stay literal (webpack reads them when it builds); the node twin repeats
// them and a test checks that the two agree.
const context = import.meta.webpackContext('../features', {
  recursive: true,
  regExp: /^\.\/(?!(?:coming-soon|home|jobs|login|not-found|settings|tool-frame)\/)([a-z0-9-]+)\/\1-page\.tsx$/,
  mode: 'lazy',
  chunkName: 'route-[request]',
});

export const pageModules: PageModules = {
  keys: () => context.keys(),
  load: (key) => context(key) as Promise<PageModule>,
};
