/**
 * Exact timing over real gRPC (docs/segments.md): every segment of every answer, Plan responses of every
 * planner and Stream updates (whole paths and spliced replacements), for units with speed limits, has speed
 * linear in time: length = (start_speed + end_speed) / 2 * duration within 1e-6 relative; every segment of
 * positive length has a duration, and no speed exceeds the unit's max_speed (half of it in reverse). A spliced
 * update's cost is the cost of the replacement it carries.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { call, startServer, type TestServer } from "../helpers/server.ts";
import { sampledPathCost } from "../helpers/pathCheck.ts";
import { walledRoomText } from "../helpers/movingai.ts";

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
}, 120_000);
afterAll(async () => {
  await srv?.stop();
});

// deno-lint-ignore no-explicit-any
type Wire = any;

/** Top speeds of the built-in profiles (README / proto table). */
const MAX_SPEED: Record<string, number> = { soldier: 2, jeep: 8, tank: 4, truck: 6 };

/** Problems of a timed path: the identity, a duration on every segment, speeds within the unit's limits. */
function timingProblems(segments: Wire[], maxSpeed: number): string[] {
  const problems: string[] = [];
  for (const [i, s] of segments.entries()) {
    const v0 = s.start_speed ?? 0, v1 = s.end_speed ?? 0, T = s.duration ?? 0, L = s.length ?? 0;
    if (L > 0 && !(T > 0)) problems.push(`segment ${i}: length ${L} without a duration`);
    if (T > 0 && Math.abs(L - 0.5 * (v0 + v1) * T) > 1e-6 * Math.max(L, 1e-9)) {
      problems.push(`segment ${i}: length ${L} != (${v0} + ${v1}) / 2 * ${T}`);
    }
    const cap = (s.direction < 0 ? 0.5 : 1) * maxSpeed * (1 + 1e-9);
    if (v0 > cap || v1 > cap) problems.push(`segment ${i}: speed ${Math.max(v0, v1)} above ${cap}`);
    if (v0 < 0 || v1 < 0) problems.push(`segment ${i}: negative speed`);
  }
  return problems;
}

describe("the timing identity on every answer", () => {
  test("Plan: every planner, units with speed limits, on the yard", async () => {
    const pairs = [[25.5, 5.5, 55.5, 25.5], [25.5, 50.5, 55.5, 40.5], [30.5, 35.5, 58.5, 5.5]];
    const planners = [
      "PLANNER_AUTO",
      "PLANNER_GRID",
      "PLANNER_SMOOTH",
      "PLANNER_CURVED",
      "PLANNER_DIRECTIONAL",
      "PLANNER_HYBRID",
      "PLANNER_HIERARCHICAL",
    ];
    let checked = 0, split = 0;
    const seen = new Set<string>();
    for (const name of Object.keys(MAX_SPEED)) {
      for (const planner of planners) {
        for (const [sx, sy, gx, gy] of pairs) {
          const res: Wire = await call(srv.client, "Plan", {
            map: { id: "yard" },
            unit: { name },
            start: { x: sx, y: sy, heading: 0 },
            goal: { x: gx, y: gy, tolerance: 0.5 },
            planner,
          }).catch(() => null); // a planner may refuse a unit (its message says why): not this test's subject
          if (!res || res.status !== "PLAN_STATUS_FOUND") continue;
          expect(timingProblems(res.segments, MAX_SPEED[name]), `${name} ${planner}`).toEqual([]);
          expect(res.duration).toBeCloseTo(res.segments.reduce((a: number, s: Wire) => a + s.duration, 0), 6);
          // Split at the speed phases: some segment starts where the previous one ends with the same geometry.
          for (let i = 1; i < res.segments.length; i++) {
            const a = res.segments[i - 1], b = res.segments[i];
            if (
              a.curvature === b.curvature && a.direction === b.direction && a.end.heading === b.start.heading
            ) {
              split++;
            }
          }
          seen.add(res.stats.planner);
          checked++;
        }
      }
    }
    // Fixed-angle art (lines at 16 headings, rewritten after the planner ran) is timed and split the same way.
    let art = 0;
    for (const planner of ["PLANNER_SMOOTH", "PLANNER_DIRECTIONAL", "PLANNER_HYBRID"]) {
      const [sx, sy, gx, gy] = pairs[0];
      const res: Wire = await call(srv.client, "Plan", {
        map: { id: "yard" },
        unit: { name: "tank", headings: 16 },
        start: { x: sx, y: sy, heading: 0 },
        goal: { x: gx, y: gy, tolerance: 0.5 },
        planner,
      }).catch(() => null);
      if (!res || res.status !== "PLAN_STATUS_FOUND") continue;
      expect(timingProblems(res.segments, MAX_SPEED.tank), `tank/16 ${planner}`).toEqual([]);
      art++;
    }
    expect(art).toBeGreaterThan(0);
    expect(checked).toBeGreaterThanOrEqual(40);
    expect(split).toBeGreaterThan(0);
    for (
      const p of ["PLANNER_GRID", "PLANNER_SMOOTH", "PLANNER_CURVED", "PLANNER_DIRECTIONAL", "PLANNER_HYBRID"]
    ) {
      expect(seen).toContain(p);
    }
  }, 300_000);

  test(
    "Stream: initial, refined and spliced updates; a spliced update's cost is its replacement's",
    async () => {
      await call(srv.client, "PutMap", { id: "timing-stream", movingai: walledRoomText(40, 20) });
      let spliced = 0;
      for (const [name, planner] of [["tank", "PLANNER_HYBRID"], ["jeep", "PLANNER_DIRECTIONAL"]]) {
        const st = srv.client.Stream();
        const updates: Wire[] = [];
        st.on("data", (u: unknown) => updates.push(u));
        st.on("error", () => {});
        const waitFor = async (n: number) => {
          for (let i = 0; i < 1200 && updates.length < n; i++) await new Promise((r) => setTimeout(r, 25));
          expect(updates.length).toBeGreaterThanOrEqual(n);
        };
        st.write({
          plan: {
            map: { id: "timing-stream" },
            unit: { name },
            start: { x: 3.5, y: 10.5, heading: 0 },
            goal: { x: 36.5, y: 10.5, tolerance: 0.5 },
            planner,
          },
        });
        await waitFor(2);
        st.write({ progress: { distance: 6 } });
        await new Promise((r) => setTimeout(r, 100));
        await call(srv.client, "PatchMap", {
          map: { id: "timing-stream" },
          edits: [{ x: 22, y: 1, width: 1, height: 15, tile: "@" }],
        });
        await waitFor(3);
        st.end();
        // Undo the wall for the next unit.
        await call(srv.client, "PatchMap", {
          map: { id: "timing-stream" },
          edits: [{ x: 22, y: 1, width: 1, height: 15, tile: "." }],
        });
        for (const u of updates) {
          if (!u.plan || u.plan.segments.length === 0) continue;
          expect(timingProblems(u.plan.segments, MAX_SPEED[name]), `${name} update ${u.sequence}`).toEqual(
            [],
          );
          const sampled = sampledPathCost(u.plan.segments, {
            reversePenalty: 2,
            cuspPenalty: 2,
            turnPenalty: 0,
          }, () => 1);
          expect(Math.abs(u.plan.cost - sampled.total)).toBeLessThanOrEqual(1e-3 * sampled.total + 0.02);
          if (u.replace_from_segment >= 0) spliced++;
        }
      }
      expect(spliced).toBeGreaterThan(0);
    },
    120_000,
  );
});
