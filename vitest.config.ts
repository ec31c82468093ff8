import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Two cores: two forks; each test file starts its own platform on its own stores.
export default defineConfig({
  // Tests run the SDK's sources, never a dist/ older than them (the build makes dist/ for users and the server).
  resolve: {
    alias: { '@reality-data-platform/sdk': fileURLToPath(new URL('./packages/sdk/src/index.ts', import.meta.url)) },
  },
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
