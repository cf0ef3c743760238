/**
 * End-to-end over real gRPC (issue 13 item 1, "streams give the first drivable part early"): a long
 * PLANNER_DIRECTIONAL tank stream on a tiled map of rooms gets a PLAN_STATUS_PARTIAL INITIAL update that is
 * a legal prefix (it starts at the start, ends short of the goal, and every segment fits the tank), then a
 * REFINED update that appends the rest from the prefix's segment count; the spliced whole is legal, ends at the goal and is priced truthfully. A
 * short stream, and a long AUTO one, are unchanged: their INITIAL update is a whole FOUND path.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";
import type { PlanOutcome } from "../../src/planning/task.ts";
import type { TestServer } from "../helpers/server.ts";
import { checkPath } from "../helpers/pathCheck.ts";
import { longRoomLayer, longRoomTankCost, startLongRoomServer } from "../helpers/longRooms.ts";
import { applyUpdate, type ClientSegment, poseOn } from "../helpers/splice.ts";

// The long rooms map: the corridor planner is in use, a ~1,630-tile tank path.
const layer = longRoomLayer;
const tank = BUILTIN_PROFILES.tank;

let srv: TestServer;
beforeAll(async () => {
  srv = await startLongRoomServer();
}, 60_000);
afterAll(async () => {
  await srv?.stop();
});

// deno-lint-ignore no-explicit-any
type Update = any;

/** Opens a stream, collects updates until `done(updates)` says so (or the stream ends), then closes it. */
function collect(first: object, done: (us: Update[]) => boolean): Promise<Update[]> {
  return new Promise((resolve, reject) => {
    const s = srv.client.Stream();
    const got: Update[] = [];
    s.on("data", (u: Update) => {
      got.push(u);
      if (done(got)) {
        s.end();
        resolve(got);
      }
    });
    s.on("error", (e: Error) => {
      // Our own end() after `done` may race a cancel; anything else fails the test.
      if (!done(got)) reject(e);
    });
    s.on("end", () => resolve(got));
    s.write({ plan: first });
  });
}

const cost = longRoomTankCost;
const asOutcome = (segments: ClientSegment[]) => ({ segments }) as unknown as PlanOutcome;

describe("a long turning-unit stream sends its first drivable part early", () => {
  test(
    "PARTIAL legal prefix first, then the rest appended; the whole is legal and ends at the goal",
    async () => {
      const start = { x: 16.5, y: 16.5, heading: 0 }, goal = { x: 1647.5, y: 20.5 };
      const us = await collect({
        map: { id: "rooms" },
        unit: { name: "tank" },
        start,
        goal,
        planner: "PLANNER_DIRECTIONAL",
        options: { max_millis: 60_000 },
      }, (g) => g.length >= 2 || g.some((u) => u.kind === "UPDATE_KIND_STATUS"));
      expect(us.length, JSON.stringify(us.map((u) => [u.kind, u.status, u.plan?.message])))
        .toBeGreaterThanOrEqual(2);
      const [first, second] = us;
      expect(first.kind).toBe("UPDATE_KIND_INITIAL");
      expect(first.plan.status, first.plan.message).toBe("PLAN_STATUS_PARTIAL");
      expect(first.replace_from_segment).toBe(-1);
      const prefix: ClientSegment[] = first.plan.segments;
      expect(prefix.length).toBeGreaterThan(0);
      // A legal prefix: from the start, every segment fits, joins exact; it ends on the way, not at the goal.
      const prefixProblems = checkPath(layer, tank, asOutcome(prefix), start, { ...goal, tolerance: 0.5 });
      expect(prefixProblems).toEqual(["does not end at the goal"]);
      const end = poseOn(prefix[prefix.length - 1], prefix[prefix.length - 1].length);
      expect(Math.hypot(end.x - goal.x, end.y - goal.y)).toBeGreaterThan(100);
      // Its figures are its own.
      expect(first.plan.cost).toBeCloseTo(cost(prefix), 1);

      expect(second.kind).toBe("UPDATE_KIND_REFINED");
      expect(second.plan.status, second.plan.message).toBe("PLAN_STATUS_FOUND");
      expect(second.replace_from_segment).toBe(prefix.length);
      expect(second.replace_from_distance ?? 0).toBe(0);
      const whole = applyUpdate(prefix, second);
      expect(whole.length).toBe(prefix.length + second.plan.segments.length);
      expect(checkPath(layer, tank, asOutcome(whole), start, { ...goal, tolerance: 0.5 })).toEqual([]);
      // The update's cost is the appended part's; the prefix's and the rest's add up to about the whole's (the
      // joint is exact and smooth, so only sampling differs).
      expect(second.plan.cost).toBeCloseTo(cost(second.plan.segments), 1);
      expect(first.plan.cost + second.plan.cost).toBeCloseTo(cost(whole), 0);
      // The whole is a sensible drive along the rooms: under 1.3 times the straight distance.
      const straight = Math.hypot(goal.x - start.x, goal.y - start.y);
      expect(whole.reduce((a, s) => a + s.length, 0)).toBeLessThan(1.3 * straight);
    },
    120_000,
  );

  test.each([
    ["a short DIRECTIONAL stream", "PLANNER_DIRECTIONAL", 140.5],
    ["a long AUTO stream (its curve fit answers whole)", "PLANNER_AUTO", 1647.5],
  ])("%s is unchanged: its INITIAL update is a whole FOUND path", async (_name, planner, gx) => {
    const start = { x: 16.5, y: 16.5, heading: 0 }, goal = { x: gx, y: 16.5 };
    const us = await collect({
      map: { id: "rooms" },
      unit: { name: "tank" },
      start,
      goal,
      planner,
    }, (g) => g.length >= 1);
    const first = us[0];
    expect(first.kind).toBe("UPDATE_KIND_INITIAL");
    expect(first.plan.status, first.plan.message).toBe("PLAN_STATUS_FOUND");
    expect(first.replace_from_segment).toBe(-1);
    const segs: ClientSegment[] = first.plan.segments;
    const end = poseOn(segs[segs.length - 1], segs[segs.length - 1].length);
    expect(Math.hypot(end.x - goal.x, end.y - goal.y)).toBeLessThanOrEqual(0.5 + 1e-6);
  }, 60_000);
});
