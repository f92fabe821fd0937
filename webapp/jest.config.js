/** @type {import('jest').Config} */
module.exports = {
  rootDir: __dirname,
  testEnvironment: 'jsdom',
  roots: ['<rootDir>/src'],
  testMatch: ['**/*.test.ts?(x)'],
  setupFilesAfterEnv: ['<rootDir>/src/testing/setup-tests.ts'],
  moduleNameMapper: {
    '\\.css$': 'identity-obj-proxy',
    // webpack's lazy context that finds the tool pages cannot run here: a twin reading the folder.
    '^@/lib/page-modules$': '<rootDir>/src/testing/page-modules.node.ts',
    '^@/(.*)$': '<rootDir>/src/$1',
  },
  transform: {
    '^.+\\.tsx?$': [
      'ts-jest',
      // Jest runs CommonJS; everything else comes from tsconfig.json.
      { tsconfig: { module: 'commonjs', moduleResolution: 'node10' } },
    ],
  },
  // Pages are driven with userEvent, key by key: on a loaded 2-core machine a test can take
  // several seconds, so the default 5 s would fail a correct test.
  testTimeout: 30000,
  clearMocks: true,
  restoreMocks: true,
};
