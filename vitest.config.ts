import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Two cores: two forks; each test file starts its own platform on its own stores.
// The forks run file after file without a fresh module registry (isolate: false): collecting the
// platform's modules again for every file cost about 3 s a file (docs/ci.md). So a file must
// leave no state behind for the next one (environment, timers, listeners, spies): it restores them.
export default defineConfig({
  // Tests run the SDK's sources, never a dist/ older than them (the build makes dist/ for users and the server).
  resolve: {
    alias: { '@reality-data-platform/sdk': fileURLToPath(new URL('./packages/sdk/src/index.ts', import.meta.url)) },
  },
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    // The stores migrated once per run, copied or cloned for each platform (test/global-setup.ts).
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1, isolate: false } },
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
