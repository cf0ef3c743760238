/**
 * The warm directional tables are read once by the pool's thread into shared memory and adopted by every worker:
 * N workers hold one copy (they load nothing into their own caches), and a write made on this thread is seen by
 * each worker, so they read the very same memory. A worker gone idle after a big search lets go of its scratch.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { WorkerPool } from "../../src/service/pool.ts";
import { tableStore } from "../../src/service/directionalTables.ts";
import { SHARED_NEIGHBORHOODS, warmTableProfiles } from "../../src/service/warmUp.ts";
import { tableKey } from "../../src/search/hitCheckTable.ts";
import { BIG, slowTask } from "../helpers/poolJobs.ts";

describe("directional tables shared by the workers", () => {
  let pool: WorkerPool;
  beforeAll(() => {
    pool = new WorkerPool({ size: 2, maxQueue: 4 });
  });
  afterAll(() => pool.close());

  test("every worker adopts the warm set over shared memory and loads no copy of its own", async () => {
    const keys = warmTableProfiles(SHARED_NEIGHBORHOODS).map(tableKey).sort();
    expect(keys.length).toBeGreaterThanOrEqual(12);
    const stats = await pool.workerStats();
    expect(stats.length).toBe(2);
    for (const s of stats) {
      expect(s.shared.map((t) => t.key).sort()).toEqual(keys);
      expect(s.shared.every((t) => t.sharedMemory)).toBe(true);
      // The warm-up found every set adopted: nothing read or built into the worker's own cache.
      expect(s.ownBytes).toBe(0);
    }
    // Counted once: what this thread holds is the pool's figure (~15 MB for the built-in units).
    expect(pool.sharedTableBytes).toBe(tableStore.sharedBytes);
    expect(pool.sharedTableBytes).toBeGreaterThan(8 * 1024 * 1024);
  }, 60_000);

  test("a write to this thread's table is seen by every worker: one buffer, not copies", async () => {
    const set = tableStore.sharedSets()[0];
    const values = set.heur.values;
    const before = values[0];
    try {
      values[0] = before ^ 0x5a5a;
      const stats = await pool.workerStats();
      for (const s of stats) {
        expect(s.shared.find((t) => t.key === set.key)!.firstHeuristic).toBe(before ^ 0x5a5a);
      }
    } finally {
      values[0] = before;
    }
  }, 60_000);

  test("a worker idle after a big search lets go of its search scratch", async () => {
    const before = (await pool.workerStats()).reduce((n, s) => n + s.scratchReleased, 0);
    // 300 ms of a 4-connected search on a 1500 x 1500 map: a paged workspace of several MB.
    const out = await pool.run(slowTask(300), BIG);
    expect(out.value.status).toBe("budget");
    // The release comes 1 s after the job (service/worker.ts); wait for it (no timing is asserted).
    let released = before;
    for (let i = 0; i < 50 && released <= before; i++) {
      await new Promise((r) => setTimeout(r, 200));
      released = (await pool.workerStats()).reduce((n, s) => n + s.scratchReleased, 0);
    }
    expect(released - before).toBeGreaterThan(1 << 20);
  }, 60_000);
});
