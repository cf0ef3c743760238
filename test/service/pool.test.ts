/**
 * The worker pool in-process: real Deno workers running the planning code, with the queue bound, cancel flags
 * and crash replacement it promises.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type SharedData, WorkerPool } from "../../src/service/pool.ts";
import { ServiceError } from "../../src/service/errors.ts";
import { buildPassLayer } from "../../src/maps/layer.ts";
import { movingAiTerrain } from "../../src/maps/terrain.ts";
import type { PassLayer } from "../../src/maps/grid.ts";
import { type PlanTask, planTask } from "../../src/planning/task.ts";
import { AGENT } from "../../src/units/profiles.ts";

/** A `size` x `size` open map; with `wall`, a full-height wall at x = size - 2 cuts off the last column. */
function openMap(size: number, wall: boolean): PassLayer {
  const tiles = new Uint8Array(size * size).fill(".".charCodeAt(0));
  if (wall) { for (let y = 0; y < size; y++) tiles[y * size + size - 2] = "@".charCodeAt(0); }
  return buildPassLayer({ width: size, height: size, tiles }, movingAiTerrain());
}

const small = openMap(32, false);
/** 4-connected search toward a walled-off goal on 1500 x 1500 tiles: seconds of work, stopped only by flags. */
const big = openMap(1500, true);
const shared = (key: string, layer: PassLayer): SharedData[] => [{ key, data: layer }];

function quick(): PlanTask {
  return planTask(
    {
      planner: "grid",
      layerKey: "small",
      width: 32,
      unit: AGENT,
      start: { x: 1.5, y: 1.5, heading: 0 },
      goal: { x: 30.5, y: 20.5 },
    },
  );
}

function slow(): PlanTask {
  return planTask(
    {
      planner: "grid",
      layerKey: "big",
      width: 1500,
      unit: AGENT,
      start: { x: 0.5, y: 0.5, heading: 0 },
      goal: { x: 1499.5, y: 0.5 },
    },
    { neighborhood: 4, maxExpansions: 1e9, maxMillis: 60_000 },
  );
}

async function rejection(p: Promise<unknown>): Promise<ServiceError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(ServiceError);
    return e as ServiceError;
  }
  throw new Error("expected the job to fail");
}

describe("worker pool", () => {
  let pool: WorkerPool;
  beforeAll(() => {
    pool = new WorkerPool({ size: 1, maxQueue: 1 });
  });
  afterAll(() => pool.close());

  test("runs a task on a worker over the shared layer and reports its queue wait", async () => {
    const r = await pool.run(quick(), shared("small", small));
    expect(r.value.status).toBe("found");
    expect(r.value.planner).toBe("grid");
    expect(r.value.segments.length).toBeGreaterThan(0);
    expect(r.queueMicros).toBeGreaterThanOrEqual(0);
  });

  test("a full queue answers RESOURCE_EXHAUSTED at once; stream jobs may wait past the bound", async () => {
    const abort = new AbortController();
    const running = pool.run(slow(), shared("big", big), abort.signal);
    const waiting = pool.run(quick(), shared("small", small));
    const t0 = performance.now();
    const refused = await rejection(pool.run(quick(), shared("small", small)));
    expect(refused.code).toBe("RESOURCE_EXHAUSTED");
    expect(refused.message).toContain("limit 1");
    expect(performance.now() - t0).toBeLessThan(100);
    const exempt = pool.run(quick(), shared("small", small), undefined, { exemptFromQueueLimit: true });
    expect(pool.queued).toBe(2);
    abort.abort();
    expect((await rejection(running)).code).toBe("CANCELLED");
    // The cancel flag stops the busy worker's search; the queued jobs then run on it.
    expect((await waiting).value.status).toBe("found");
    expect((await exempt).value.status).toBe("found");
    expect(pool.restarts).toBe(0);
  });

  test("an abort with a ServiceError reason answers with that error (deadline)", async () => {
    const abort = new AbortController();
    const running = pool.run(slow(), shared("big", big), abort.signal);
    setTimeout(() => abort.abort(new ServiceError("DEADLINE_EXCEEDED", "deadline passed")), 50);
    const e = await rejection(running);
    expect(e.code).toBe("DEADLINE_EXCEEDED");
    expect((await pool.run(quick(), shared("small", small))).value.status).toBe("found");
  });

  test("a worker that crashes fails its job with INTERNAL and is replaced; the next job runs", async () => {
    const e = await rejection(pool.run({ ...quick(), debugCrash: true }, shared("small", small)));
    expect(e.code).toBe("INTERNAL");
    expect(e.message).toContain("worker crashed");
    expect(pool.restarts).toBe(1);
    // The replacement worker knows no shared data yet: the pool posts the layer again.
    expect((await pool.run(quick(), shared("small", small))).value.status).toBe("found");
  });

  test("after close every job is refused with UNAVAILABLE", async () => {
    const p = new WorkerPool({ size: 1, maxQueue: 4 });
    p.close();
    expect((await rejection(p.run(quick(), shared("small", small)))).code).toBe("UNAVAILABLE");
  });
});
