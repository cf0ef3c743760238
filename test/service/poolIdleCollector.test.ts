/**
 * The pool thread's idle collection (src/service/poolIdleCollector.ts): a young generation grown by allocation
 * is given back once the pool has been idle, not while a worker runs; a small one is left alone.
 */
import { describe, expect, test } from "vitest";
import {
  POOL_IDLE_COLLECT_MS,
  PoolIdleCollector,
  YOUNG_KEEP_BYTES,
  youngGenerationBytes,
} from "../../src/service/poolIdleCollector.ts";

/** Allocates objects that survive a few scavenges, so V8 grows this thread's young generation. */
function growYoungGeneration(): void {
  let keep: unknown[] = [];
  for (let i = 0; i < 1_500_000; i++) {
    keep.push({ i, s: [i, i + 1] });
    if (keep.length > 200_000) keep = [];
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("PoolIdleCollector", () => {
  test("collects a grown young generation once the pool is idle, not while a worker runs", async () => {
    let running = true;
    const collector = new PoolIdleCollector({ running: () => running, queued: () => false });
    try {
      growYoungGeneration();
      const grown = youngGenerationBytes();
      expect(grown, "the allocation grew the young generation").toBeGreaterThan(YOUNG_KEEP_BYTES);
      // A worker still runs: nothing is scheduled.
      collector.whenIdle();
      await sleep(POOL_IDLE_COLLECT_MS + 500);
      expect(youngGenerationBytes(), "collected while a worker ran").toBeGreaterThan(YOUNG_KEEP_BYTES);
      running = false;
      collector.whenIdle();
      // Its timer fires after POOL_IDLE_COLLECT_MS, later on a loaded machine: look until then and 10 s more.
      await sleep(POOL_IDLE_COLLECT_MS);
      for (let i = 0; i < 100 && youngGenerationBytes() > YOUNG_KEEP_BYTES; i++) await sleep(100);
      const after = youngGenerationBytes();
      expect(after, `young generation ${grown} -> ${after} bytes`).toBeLessThanOrEqual(YOUNG_KEEP_BYTES);
    } finally {
      collector.close();
    }
  }, 30_000);
});
