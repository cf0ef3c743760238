/**
 * The worker pool in-process: real Deno workers running the planning code, with the queue bound, cancel flags
 * and crash replacement it promises.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { WorkerPool } from "../../src/service/pool.ts";
import { ServiceError } from "../../src/service/errors.ts";
import { BIG, quickTask, rejection, slowTask, SMALL } from "../helpers/poolJobs.ts";

describe("worker pool", () => {
  let pool: WorkerPool;
  beforeAll(() => {
    pool = new WorkerPool({ size: 1, maxQueue: 1 });
  });
  afterAll(() => pool.close());

  test("runs a task on a worker over the shared layer and reports its queue wait", async () => {
    const r = await pool.run(quickTask(), SMALL);
    expect(r.value.status).toBe("found");
    expect(r.value.planner).toBe("grid");
    expect(r.value.segments.length).toBeGreaterThan(0);
    expect(r.queueMicros).toBeGreaterThanOrEqual(0);
  });

  test("a full queue answers RESOURCE_EXHAUSTED at once; stream jobs may wait past the bound", async () => {
    const abort = new AbortController();
    const running = pool.run(slowTask(), BIG, abort.signal);
    const waiting = pool.run(quickTask(), SMALL);
    // "At once": a queued refusal would wait for the slow job, which runs until the abort below (the test would
    // time out); no wall-clock bound, which a loaded machine can miss.
    const refused = await rejection(pool.run(quickTask(), SMALL));
    expect(refused.code).toBe("RESOURCE_EXHAUSTED");
    expect(refused.message).toContain("limit 1");
    const exempt = pool.run(quickTask(), SMALL, undefined, { exemptFromQueueLimit: true });
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
    const running = pool.run(slowTask(), BIG, abort.signal);
    setTimeout(() => abort.abort(new ServiceError("DEADLINE_EXCEEDED", "deadline passed")), 50);
    const e = await rejection(running);
    expect(e.code).toBe("DEADLINE_EXCEEDED");
    expect((await pool.run(quickTask(), SMALL)).value.status).toBe("found");
  });

  test("a worker that crashes fails its job with INTERNAL and is replaced; the next job runs", async () => {
    const e = await rejection(pool.run({ ...quickTask(), debugCrash: true }, SMALL));
    expect(e.code).toBe("INTERNAL");
    expect(e.message).toContain("worker crashed");
    expect(pool.restarts).toBe(1);
    // The replacement worker knows no shared data yet: the pool posts the layer again.
    expect((await pool.run(quickTask(), SMALL)).value.status).toBe("found");
  });

  test("after close every job is refused with UNAVAILABLE", async () => {
    const p = new WorkerPool({ size: 1, maxQueue: 4 });
    p.close();
    expect((await rejection(p.run(quickTask(), SMALL))).code).toBe("UNAVAILABLE");
  });
});
