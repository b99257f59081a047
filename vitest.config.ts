import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // graphql 16 ships CJS (`main`) and ESM (`module`). Node's ESM loader picks `main`, Vite picks `module`; test
    // code and the (external) Pothos/yoga packages must share one instance, so tests resolve the one Node uses.
    alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['node_modules/**', 'data/**'],
    // One migrated database per run, copied for each test file (test/support/database.ts).
    globalSetup: ['./test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Integration suites share one PostgreSQL database; files run one at a time per worker.
    fileParallelism: true,
    maxWorkers: 2,
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
