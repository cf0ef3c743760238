/**
 * End-to-end over real gRPC (issue 13 item 1): a turning unit's stream answers first with a path it can drive.
 * A tank's PLANNER_HYBRID, PLANNER_AUTO and PLANNER_DIRECTIONAL streams through two doors get an INITIAL path
 * that the independent checker finds legal for the tank's footprint and turning radius (it was a grid path of
 * turns in place before), then the planner asked for as REFINED. On a long staircase that the hybrid's curve fit
 * cannot follow, a HYBRID stream's INITIAL update is a PLAN_STATUS_PARTIAL legal prefix and the REFINED update
 * appends the rest: the whole is legal and ends at the goal.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";
import type { PlanOutcome } from "../../src/planning/task.ts";
import { call, startServer, type TestServer } from "../helpers/server.ts";
import { checkPath, doorRows, layerOf } from "../helpers/pathCheck.ts";
import { stairsMap } from "../helpers/stairs.ts";
import { applyUpdate, type ClientSegment } from "../helpers/splice.ts";

const tank = BUILTIN_PROFILES.tank;
const doors = doorRows();
// 30 steps of 6 tiles, 3 wide, on a 320 x 320 map: a ~360-tile corridor, beyond one directional window.
const stairs = stairsMap(3, 6, 30, 320);

const text = (rows: string[]) =>
  `type octile\nheight ${rows.length}\nwidth ${rows[0].length}\nmap\n${rows.join("\n")}\n`;

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer(["--no-demo"]);
  await call(srv.client, "PutMap", { id: "doors", movingai: text(doors) });
  await call(srv.client, "PutMap", { id: "stairs", movingai: text(stairs.rows) });
}, 60_000);
afterAll(async () => {
  await srv?.stop();
});

// deno-lint-ignore no-explicit-any
type Update = any;

/** Opens a stream, collects `n` updates (or fewer if it ends or a STATUS comes), then closes it. */
function collect(first: object, n: number): Promise<Update[]> {
  return new Promise((resolve, reject) => {
    const s = srv.client.Stream();
    const got: Update[] = [];
    const done = () => got.length >= n || got.some((u) => u.kind === "UPDATE_KIND_STATUS");
    s.on("data", (u: Update) => {
      got.push(u);
      if (done()) {
        s.end();
        resolve(got);
      }
    });
    s.on("error", (e: Error) => {
      if (!done()) reject(e);
    });
    s.on("end", () => resolve(got));
    s.write({ plan: first });
  });
}

const asOutcome = (segments: ClientSegment[]) => ({ segments }) as unknown as PlanOutcome;
const describeUpdates = (us: Update[]) =>
  JSON.stringify(us.map((u) => [u.kind, u.status, u.plan?.status, u.plan?.stats?.planner, u.plan?.message]));

describe("a turning unit's stream answers first with a path it can drive", () => {
  const layer = layerOf(doors);
  const start = { x: 5.5, y: 5.5, heading: 0 }, goal = { x: 34.5, y: 34.5 };

  test.each(["PLANNER_HYBRID", "PLANNER_AUTO", "PLANNER_DIRECTIONAL"])(
    "a tank's %s stream through two doors: the INITIAL path is legal for its turning, then REFINED",
    async (planner) => {
      const us = await collect({ map: { id: "doors" }, unit: { name: "tank" }, start, goal, planner }, 2);
      expect(us.length, describeUpdates(us)).toBe(2);
      const [first, second] = us;
      expect(first.kind).toBe("UPDATE_KIND_INITIAL");
      expect(first.plan.status, first.plan.message).toBe("PLAN_STATUS_FOUND");
      // The independent checker: footprint clear of walls, no curve tighter than the turning radius, exact
      // joins in position and heading (a grid path's corners, turns in place, fail here), ends at the goal.
      expect(checkPath(layer, tank, asOutcome(first.plan.segments), start, { ...goal, tolerance: 0.5 }))
        .toEqual([]);
      expect(first.plan.stats.planner).not.toBe("PLANNER_GRID");

      expect(second.kind).toBe("UPDATE_KIND_REFINED");
      expect(second.replace_from_segment).toBe(-1);
      expect(checkPath(layer, tank, asOutcome(second.plan.segments), start, { ...goal, tolerance: 0.5 }))
        .toEqual([]);
      if (planner === "PLANNER_HYBRID") {
        // The hybrid's curve fit settled the query: the refined path is the same one (no second search).
        expect(second.plan.segments).toEqual(first.plan.segments);
        expect(second.plan.message).toContain("the initial path again");
      }
      if (planner === "PLANNER_DIRECTIONAL") expect(second.plan.stats.planner).toBe("PLANNER_DIRECTIONAL");
    },
    60_000,
  );

  test(
    "a long HYBRID stream the curve fit cannot settle: a PARTIAL legal prefix first, then the rest appended",
    async () => {
      const layer = layerOf(stairs.rows);
      const { start, goal } = stairs;
      const us = await collect({
        map: { id: "stairs" },
        unit: { name: "tank" },
        start,
        goal,
        planner: "PLANNER_HYBRID",
        options: { max_millis: 60_000 },
      }, 2);
      expect(us.length, describeUpdates(us)).toBe(2);
      const [first, second] = us;
      expect(first.kind).toBe("UPDATE_KIND_INITIAL");
      expect(first.plan.status, first.plan.message).toBe("PLAN_STATUS_PARTIAL");
      const prefix: ClientSegment[] = first.plan.segments;
      // A legal prefix: from the start, every segment fits the tank; it stops on the way.
      expect(checkPath(layer, tank, asOutcome(prefix), start, { ...goal, tolerance: 0.5 }))
        .toEqual(["does not end at the goal"]);

      expect(second.kind).toBe("UPDATE_KIND_REFINED");
      expect(second.plan.status, second.plan.message).toBe("PLAN_STATUS_FOUND");
      expect(second.replace_from_segment).toBe(prefix.length);
      const whole = applyUpdate(prefix, second);
      expect(checkPath(layer, tank, asOutcome(whole), start, { ...goal, tolerance: 0.5 })).toEqual([]);
    },
    120_000,
  );
});
