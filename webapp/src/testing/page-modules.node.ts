/// <reference types="node" />
// lib/page-modules.ts for jest (mapped in jest.config.js): the same folder and pattern, read with fs.
import fs from 'fs';
import path from 'path';

import type { PageModule, PageModules } from '@/lib/page-modules';

/** Must equal the regExp of lib/page-modules.ts (page-modules.test.ts checks it). */
export const PAGE_FILE = /^\.\/(?!(?:coming-soon|home|jobs|login|not-found|settings|tool-frame)\/)([a-z0-9-]+)\/\1-page\.tsx$/;

const FEATURES = path.resolve(__dirname, '../features');

export const pageModules: PageModules = {
  keys: () =>
    fs
      .readdirSync(FEATURES, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `./${entry.name}/${entry.name}-page.tsx`)
      .filter((key) => PAGE_FILE.test(key) && fs.existsSync(path.join(FEATURES, key)))
      .sort(),
  load: (key) => import(path.join(FEATURES, key)) as Promise<PageModule>,
};
