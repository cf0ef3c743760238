/**
 * PlanMany throughput: 1000 plans in one PlanMany call vs the same 1000 plans as single Plan calls (64 in
 * flight) on the same server, the arena demo map's benchmark queries with PLANNER_GRID.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, startBenchServer, unary } from "./server.ts";

/** The 1000 requests: arena.map.scen queries, cycled. */
function requests(): object[] {
  const scen = readFileSync(join(ROOT, "../shared/data/movingai/arena.map.scen"), "utf8").trim().split("\n")
    .slice(1).map((l) => l.split(/\s+/).map(Number));
  return Array.from({ length: 1000 }, (_, i) => {
    const q = scen[i % scen.length];
    return {
      map: { id: "arena" },
      start: { x: q[4] + 0.5, y: q[5] + 0.5 },
      goal: { x: q[6] + 0.5, y: q[7] + 0.5 },
      planner: "PLANNER_GRID",
      options: { omit_waypoints: true },
    };
  });
}

/** Runs the comparison; returns a markdown table. */
export async function benchPlanMany(rounds = 3): Promise<string> {
  const srv = await startBenchServer();
  try {
    const reqs = requests();
    const single = async (): Promise<number> => {
      const t0 = performance.now();
      let next = 0;
      const loop = async () => {
        while (next < reqs.length) await unary(srv.client, "Plan", reqs[next++]);
      };
      await Promise.all(Array.from({ length: 64 }, loop));
      return performance.now() - t0;
    };
    const many = async (): Promise<number> => {
      const t0 = performance.now();
      const res = await unary(srv.client, "PlanMany", { requests: reqs });
      if (res.results.length !== reqs.length || res.results.some((r: { code: number }) => r.code !== 0)) {
        throw new Error("PlanMany: a request failed");
      }
      return performance.now() - t0;
    };
    await single(); // warm-up
    await many();
    const s: number[] = [], m: number[] = [];
    for (let r = 0; r < rounds; r++) {
      s.push(await single());
      m.push(await many());
    }
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const ts = med(s), tm = med(m);
    return [
      "| 1000 plans (arena.map.scen, PLANNER_GRID) | ms (median of " + rounds + ") | plans/s |",
      "| --- | ---: | ---: |",
      `| 1000 single Plan calls, 64 in flight | ${ts.toFixed(0)} | ${(1000 / ts * 1000).toFixed(0)} |`,
      `| one PlanMany call | ${tm.toFixed(0)} | ${(1000 / tm * 1000).toFixed(0)} |`,
      `| speed-up | | ${(ts / tm).toFixed(1)}x |`,
    ].join("\n");
  } finally {
    await srv.stop();
  }
}
