/**
 * The detour pass's default clock (service/fleetDetour.ts threadCpuMs): the CPU time of the thread running it, so
 * that a pass over gRPC does the same work whatever else the machine runs. It advances with work, not while the
 * thread waits.
 */
import { describe, expect, test } from "vitest";
import { budgetSpent, threadCpuMs } from "../../src/service/fleetDetour.ts";

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

  test("the budget test reads the CPU clock only when it could be spent, with the same answers", () => {
    // A fake thread: each step it runs some CPU ms and waits some wall ms (CPU never faster than the wall clock).
    let s = 7;
    const rnd = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
    let cpu = 1000, wall = 5000, reads = 0;
    const deadline = cpu + 300;
    const spent = budgetSpent(deadline, () => (reads++, cpu), () => wall);
    let calls = 0, firstSpent = -1;
    for (let i = 0; i < 2000; i++) {
      const run = rnd() * 2;
      cpu += run;
      wall += run + rnd() * 3;
      calls++;
      const got = spent();
      // The answer of a read every time: spent once the thread's CPU time reaches the deadline.
      expect(got).toBe(cpu >= deadline);
      if (got) {
        firstSpent = i;
        break;
      }
    }
    expect(firstSpent).toBeGreaterThan(0);
    // Far fewer reads than calls (before: one a call): while the wall time since a read is below what was left.
    expect(reads).toBeLessThan(calls / 2);
  });
});
