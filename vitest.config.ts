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
    // Two files at a time, each on a database of its own.
    fileParallelism: true,
    maxWorkers: 2,
    // Files share their worker's module cache instead of each re-importing the service in a new process (a third of
    // the suite's time). No test needs a fresh module: state lives in the services, databases and processes a file
    // starts and closes itself; the few fake timers are restored in the test that sets them.
    isolate: false,
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
