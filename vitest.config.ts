import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'web/src/**/*.test.ts'],
    exclude: ['node_modules', 'dist', 'web/dist/**'],
    reporters: ['default', ['json', { outputFile: 'test-results/vitest.json' }]],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    fileParallelism: true,
    maxWorkers: 2,
  },
});
