/// <reference types="node" />
import fs from 'fs';
import path from 'path';

import { pageModules } from '@/lib/page-modules';
import { TOOL_PAGES, pageComponent, pageSlug } from '@/lib/tools';
import { catalogue } from '@/testing/catalogue';
import { PAGE_FILE } from '@/testing/page-modules.node';

test("jest's twin searches with the webpack context's own pattern", () => {
  const source = fs.readFileSync(path.resolve(__dirname, 'page-modules.ts'), 'utf8');
  const literal = /regExp: (\/.*\/),\n/.exec(source)?.[1];
  expect(literal).toBe(String(PAGE_FILE));
});

test('the pattern takes features/<slug>/<slug>-page.tsx and leaves the app pages out', () => {
  expect(PAGE_FILE.test('./recolor/recolor-page.tsx')).toBe(true);
  expect(PAGE_FILE.test('./model-swap/model-swap-page.tsx')).toBe(true);
  expect(PAGE_FILE.test('./recolor/refabric-page.tsx')).toBe(false);
  expect(PAGE_FILE.test('./recolor/recolor-page.test.tsx')).toBe(false);
  expect(PAGE_FILE.test('./drives/drive-browser-page.tsx')).toBe(false);
  for (const own of ['home', 'jobs', 'login', 'settings', 'not-found', 'coming-soon', 'tool-frame']) {
    expect(PAGE_FILE.test(`./${own}/${own}-page.tsx`)).toBe(false);
  }
});

test('every page found is a catalogue tool, and the tools with their own page are found', () => {
  const slugs = pageModules.keys().map(pageSlug);
  const known = new Set(catalogue().map((tool) => tool.slug));
  expect(slugs.filter((slug) => !known.has(slug))).toEqual([]);
  expect(Object.keys(TOOL_PAGES).sort()).toEqual(
    [
      'baghold', 'earfit', 'ecommerce-asset', 'editorial', 'editorial-product', 'flats', 'garment-integration', 'model-swap', 'open-lab',
      'rebody', 'recolor', 'refabric', 'remodel', 'reshape', 'restyle', 'spinview', 'tech-pack', 'tonelab', 'virtual-try-on',
    ].sort(),
  );
});

test('each page module gives one page component', async () => {
  for (const key of pageModules.keys()) {
    const page = pageComponent(await pageModules.load(key), key);
    expect(typeof page).toBe('function');
  }
});

test('a page is the default export, else the one *Page export', () => {
  const Page = () => null;
  const Other = () => null;
  expect(pageComponent({ default: Page, OtherPage: Other }, 'k')).toBe(Page);
  expect(pageComponent({ RecolorPage: Page, MESSAGE: 'x' }, 'k')).toBe(Page);
  expect(() => pageComponent({ APage: Page, BPage: Other }, './x/x-page.tsx')).toThrow(/found APage, BPage/);
  expect(() => pageComponent({ helper: Page }, './x/x-page.tsx')).toThrow(/found none/);
});
