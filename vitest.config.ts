import { defineConfig } from "vitest/config";

// Vitest runs under Deno with its default "forks" pool (threads and vmThreads fail under Deno).
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    pool: "forks",
    // Two cores: end-to-end files start real servers with a worker per core; two files at a time is plenty.
    maxWorkers: 2,
  },
});
