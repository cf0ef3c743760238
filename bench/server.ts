/**
 * The end-to-end benchmarks' server: the tests' launcher (test/helpers/server.ts) without test hooks, logging
 * warnings only; and the benchmarks' small statistics.
 *
 * @module
 */
import { call, ROOT, startServer, type TestServer } from "../test/helpers/server.ts";

export { ROOT };

/** Starts `src/main.ts` on a free loopback port with a fresh data directory. */
export function startBenchServer(args: string[] = []): Promise<TestServer> {
  return startServer(args, undefined, { testHooks: false, logLevel: "warn" });
}

/** Promisified unary call. */
export const unary = call;

/** Median and p95 of a list of numbers. */
export function medianP95(xs: number[]): { median: number; p95: number } {
  const s = [...xs].sort((a, b) => a - b);
  return {
    median: s[Math.floor((s.length - 1) / 2)],
    p95: s[Math.min(s.length - 1, Math.floor(s.length * 0.95))],
  };
}
