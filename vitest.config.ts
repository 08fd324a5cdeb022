import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Integration tests start emulators on ephemeral ports; two workers fit the 2-core CI machine.
    maxWorkers: 2,
    reporters: ['default'],
    setupFiles: ['test/support/env.ts'],
  },
});
