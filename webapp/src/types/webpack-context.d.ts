// webpack's `import.meta.webpackContext` (webpack >= 5.70), used by lib/page-modules.ts to find
// the tool pages; jest never loads that module (see jest.config.js).
interface WebpackContextOptions {
  recursive?: boolean;
  regExp?: RegExp;
  exclude?: RegExp;
  mode?: 'sync' | 'eager' | 'weak' | 'lazy' | 'lazy-once';
  chunkName?: string;
}

interface WebpackContext {
  (request: string): unknown;
  keys(): string[];
  resolve(request: string): string | number;
  id: string | number;
}

interface ImportMeta {
  webpackContext(request: string, options?: WebpackContextOptions): WebpackContext;
}
