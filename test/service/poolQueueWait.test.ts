/**
 * The pool bounds how long an accepted job waits for a worker (accepted requests waited 94 s behind a queue of
 * 256 expensive plans): a job still queued at the limit is answered RESOURCE_EXHAUSTED, one whose estimated
 * wait already exceeds it is refused at once, and stream jobs are exempt.
 */
import { afterAll, describe, expect, test } from "vitest";
import { WorkerPool } from "../../src/service/pool.ts";
import { BIG, quickTask, rejection, slowTask, SMALL } from "../helpers/poolJobs.ts";

describe("queue wait bound", () => {
  const pools: WorkerPool[] = [];
  afterAll(() => pools.forEach((p) => p.close()));

  test("a job still waiting at the limit is answered RESOURCE_EXHAUSTED; a stream job keeps waiting", async () => {
    const pool = new WorkerPool({ size: 1, maxQueue: 16, maxQueueWaitMs: 400 });
    pools.push(pool);
    // No run time known yet, so nothing is refused up front.
    const abort = new AbortController();
    const running = pool.run(slowTask(60_000), BIG, abort.signal);
    const t0 = performance.now();
    const waiting = pool.run(quickTask(), SMALL);
    const exempt = pool.run(quickTask(), SMALL, undefined, { exemptFromQueueLimit: true });
    const e = await rejection(waiting);
    const waited = performance.now() - t0;
    expect(e.code).toBe("RESOURCE_EXHAUSTED");
    expect(e.message).toMatch(/^queue: no worker became free within the queue-wait limit of 400 ms/);
    expect(waited).toBeGreaterThanOrEqual(390);
    // Answered by the limit's timer, not when the running search frees the worker (its budget is 60 s); a
    // loaded machine may fire the timer late, so no tighter bound.
    expect(waited).toBeLessThan(10_000);
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
    await pool.run(slowTask(60_000), BIG).catch(() => {});
    const abort = new AbortController();
    const running = pool.run(slowTask(60_000), BIG, abort.signal);
    const e = await rejection(pool.run(quickTask(), SMALL));
    abort.abort();
    await rejection(running);
    // The estimate answered (its message; the limit's own refusal says "no worker became free"); no clock bound.
    expect(e.code).toBe("RESOURCE_EXHAUSTED");
    expect(e.message).toMatch(/^queue: estimated wait \d+ ms .* exceeds the queue-wait limit of 100 ms/);
    // A free worker takes a job at once, whatever the estimate. The cancelled search stops within ms of the
    // flag, but the rejection above comes at once: wait for the worker to be free (later on a loaded machine).
    for (let i = 0; i < 200 && pool.busy > 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(pool.busy, "the cancelled search's worker is free again").toBe(0);
    expect((await pool.run(quickTask(), SMALL)).value.status).toBe("found");
  });
});
