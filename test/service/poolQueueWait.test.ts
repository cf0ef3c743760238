/**
 * The pool bounds how long an accepted job waits for a worker (accepted requests waited 94 s behind a queue of
 * 256 expensive plans): a job still queued at the limit is answered RESOURCE_EXHAUSTED, one whose estimated
 * wait already exceeds it is refused at once, and stream jobs are exempt.
 */
import { afterAll, describe, expect, test } from "vitest";
import { type SharedData, WorkerPool } from "../../src/service/pool.ts";
import { ServiceError } from "../../src/service/errors.ts";
import { buildPassLayer } from "../../src/maps/layer.ts";
import { movingAiTerrain } from "../../src/maps/terrain.ts";
import type { PassLayer } from "../../src/maps/grid.ts";
import { type PlanTask, planTask } from "../../src/planning/task.ts";
import { AGENT } from "../../src/units/profiles.ts";

function openMap(size: number, wall: boolean): PassLayer {
  const tiles = new Uint8Array(size * size).fill(".".charCodeAt(0));
  if (wall) { for (let y = 0; y < size; y++) tiles[y * size + size - 2] = "@".charCodeAt(0); }
  return buildPassLayer({ width: size, height: size, tiles }, movingAiTerrain());
}
const small = openMap(32, false);
const big = openMap(1500, true);
const shared = (key: string, layer: PassLayer): SharedData[] => [{ key, data: layer }];

const quick = (): PlanTask =>
  planTask({
    planner: "grid",
    layerKey: "small",
    width: 32,
    unit: AGENT,
    start: { x: 1.5, y: 1.5, heading: 0 },
    goal: { x: 30.5, y: 20.5 },
  });
/** A search toward a walled-off goal that runs until its own `ms` budget stops it. */
const slow = (ms: number): PlanTask =>
  planTask({
    planner: "grid",
    layerKey: "big",
    width: 1500,
    unit: AGENT,
    start: { x: 0.5, y: 0.5, heading: 0 },
    goal: { x: 1499.5, y: 0.5 },
  }, { neighborhood: 4, maxExpansions: 1e9, maxMillis: ms });

async function rejection(p: Promise<unknown>): Promise<ServiceError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(ServiceError);
    return e as ServiceError;
  }
  throw new Error("expected the job to fail");
}

describe("queue wait bound", () => {
  const pools: WorkerPool[] = [];
  afterAll(() => pools.forEach((p) => p.close()));

  test("a job still waiting at the limit is answered RESOURCE_EXHAUSTED; a stream job keeps waiting", async () => {
    const pool = new WorkerPool({ size: 1, maxQueue: 16, maxQueueWaitMs: 400 });
    pools.push(pool);
    // No run time known yet, so nothing is refused up front.
    const abort = new AbortController();
    const running = pool.run(slow(60_000), shared("big", big), abort.signal);
    const t0 = performance.now();
    const waiting = pool.run(quick(), shared("small", small));
    const exempt = pool.run(quick(), shared("small", small), undefined, { exemptFromQueueLimit: true });
    const e = await rejection(waiting);
    const waited = performance.now() - t0;
    expect(e.code).toBe("RESOURCE_EXHAUSTED");
    expect(e.message).toMatch(/^queue: no worker became free within the queue-wait limit of 400 ms/);
    expect(waited).toBeGreaterThanOrEqual(390);
    expect(waited).toBeLessThan(1500);
    expect(pool.queued).toBe(1);
    abort.abort();
    await rejection(running);
    expect((await exempt).value.status).toBe("found");
  });

  test("once plans are known to take longer than the limit, a queued job is refused at once", async () => {
    const pool = new WorkerPool({ size: 1, maxQueue: 16, maxQueueWaitMs: 100 });
    pools.push(pool);
    // A search of the whole 1500 x 1500 map (at least ~300 ms on any machine here) teaches the pool its run
    // time: half of it is past the 100 ms limit.
    await pool.run(slow(60_000), shared("big", big)).catch(() => {});
    const abort = new AbortController();
    const running = pool.run(slow(60_000), shared("big", big), abort.signal);
    const t0 = performance.now();
    const e = await rejection(pool.run(quick(), shared("small", small)));
    const ms = performance.now() - t0;
    abort.abort();
    await rejection(running);
    // The estimate answered (its message), before the 100 ms limit would have.
    expect(e.code).toBe("RESOURCE_EXHAUSTED");
    expect(e.message).toMatch(/^queue: estimated wait \d+ ms .* exceeds the queue-wait limit of 100 ms/);
    expect(ms).toBeLessThan(100);
    // A free worker takes a job at once, whatever the estimate (the cancelled search stops within ms).
    await new Promise((r) => setTimeout(r, 300));
    expect((await pool.run(quick(), shared("small", small))).value.status).toBe("found");
  });
});
