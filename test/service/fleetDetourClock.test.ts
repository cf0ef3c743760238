/**
 * The detour pass's default clock (service/fleetDetour.ts threadCpuMs): the CPU time of the thread running it, so
 * that a pass over gRPC does the same work whatever else the machine runs. It advances with work, not while the
 * thread waits.
 */
import { describe, expect, test } from "vitest";
import { threadCpuMs } from "../../src/service/fleetDetour.ts";

describe("detour pass clock", () => {
  test("advances with this thread's work, hardly while it sleeps", async () => {
    const a = threadCpuMs();
    await new Promise((r) => setTimeout(r, 300));
    const slept = threadCpuMs() - a;
    // 300 ms asleep: at most a few clock ticks of the event loop's own work.
    expect(slept).toBeLessThan(150);
    const b = threadCpuMs();
    let x = 0;
    while (threadCpuMs() - b < 30) x += Math.sqrt(x + 1);
    expect(x).toBeGreaterThan(0);
    expect(threadCpuMs() - b).toBeGreaterThanOrEqual(30);
  });
});
