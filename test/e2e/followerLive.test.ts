/**
 * The second-language follower over live responses: Curve (Dubins, Reeds-Shepp, arc-then-line) and Plan
 * (SMOOTH for a turn-in-place unit, CURVED for turning-radius units) fetched over real gRPC, then integrated and
 * checked by a plain Python script (standard library only); and a stream's updates, a partial one among them,
 * applied by that script as a client would before its checks.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { call, ROOT, startServer, type TestServer } from "../helpers/server.ts";
import { walledRoomText } from "../helpers/movingai.ts";

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
}, 120_000);
afterAll(async () => {
  await srv?.stop();
});

/** Runs the follower on a list of paths; returns its exit status and output. */
function follow(paths: unknown[]): { status: number | null; out: string } {
  const r = spawnSync("/usr/bin/python3", [join(ROOT, "test/follower/follow.py"), "-"], {
    input: JSON.stringify(paths),
    encoding: "utf8",
  });
  return { status: r.status, out: r.stdout + r.stderr };
}

/** A small deterministic generator. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

test("live Curve and Plan responses follow the segment contract in Python", async () => {
  const rand = rng(7);
  const paths: unknown[] = [];
  for (let i = 0; i < 30; i++) {
    const start = { x: rand() * 20 - 10, y: rand() * 20 - 10, heading: rand() * 6.28 - 3.14 };
    const goal = { x: rand() * 20 - 10, y: rand() * 20 - 10, heading: rand() * 6.28 - 3.14 };
    const r = [0.5, 1, 2.5][i % 3];
    for (const mode of ["dubins", "rs", "arc"] as const) {
      const res = await call(srv.client, "Curve", {
        start,
        goal,
        turning_radius: r,
        allow_reverse: mode === "rs",
        ignore_goal_heading: mode === "arc",
      });
      expect(res.length).toBeGreaterThan(0);
      paths.push({
        name: `${mode}-${i}`,
        start,
        goal,
        ignoreGoalHeading: mode === "arc",
        segments: res.segments,
      });
    }
  }
  // Plans on the yard demo map: a turn-in-place unit (smooth polyline) and turning-radius units (curved).
  const pairs = [[25.5, 5.5, 55.5, 25.5], [25.5, 50.5, 55.5, 40.5], [30.5, 35.5, 58.5, 5.5], [
    26.5,
    60.5,
    38.5,
    45.5,
  ]];
  let curved = 0;
  for (const [sx, sy, gx, gy] of pairs) {
    const smooth = await call(srv.client, "Plan", {
      map: { id: "yard" },
      start: { x: sx, y: sy },
      goal: { x: gx, y: gy },
      planner: "PLANNER_SMOOTH",
    });
    expect(smooth.status).toBe("PLAN_STATUS_FOUND");
    paths.push({
      name: `smooth-${sx}-${sy}`,
      start: smooth.segments[0].start,
      goal: { x: gx, y: gy },
      turnInPlace: true,
      segments: smooth.segments,
    });
    for (const unit of [{ name: "jeep" }, { radius: 0.4, turning_radius: 1.5 }]) {
      const res = await call(srv.client, "Plan", {
        map: { id: "yard" },
        unit,
        start: { x: sx, y: sy, heading: 0 },
        goal: { x: gx, y: gy, tolerance: 0.5 },
        planner: "PLANNER_CURVED",
      });
      if (res.status !== "PLAN_STATUS_FOUND") continue;
      curved++;
      paths.push({
        name: `curved-${sx}-${sy}`,
        start: { x: sx, y: sy, heading: 0 },
        goal: { x: gx, y: gy },
        ignoreGoalHeading: true,
        goalTolerance: 0.5,
        segments: res.segments,
      });
    }
  }
  expect(curved).toBeGreaterThan(0);
  // Timed answers (units with speed limits), followed in time: the timing identity on every segment, speeds
  // within max_speed.
  let timed = 0;
  for (const [sx, sy, gx, gy] of pairs) {
    for (const [name, maxSpeed] of [["tank", 4], ["jeep", 8], ["truck", 6]] as const) {
      for (const planner of ["PLANNER_HYBRID", "PLANNER_DIRECTIONAL"]) {
        const res = await call(srv.client, "Plan", {
          map: { id: "yard" },
          unit: { name },
          start: { x: sx, y: sy, heading: 0 },
          goal: { x: gx, y: gy, tolerance: 0.5 },
          planner,
        });
        if (res.status !== "PLAN_STATUS_FOUND") continue;
        timed++;
        paths.push({
          name: `${planner}-${name}-${sx}-${sy}`,
          start: { x: sx, y: sy, heading: 0 },
          goal: { x: gx, y: gy },
          ignoreGoalHeading: true,
          goalTolerance: 0.5,
          maxSpeed,
          segments: res.segments,
        });
      }
    }
  }
  expect(timed).toBeGreaterThan(6);
  const ok = follow(paths);
  expect(ok.out).toContain(`${paths.length} passed, 0 failed`);
  expect(ok.status).toBe(0);

  // The same follower fails a response with a broken join.
  const broken = structuredClone(paths.slice(0, 3)) as { segments: { start: { x: number } }[] }[];
  broken[0].segments[broken[0].segments.length - 1].start.x += 0.01;
  const bad = follow(broken);
  expect(bad.status).toBe(1);
  expect(bad.out).toContain("2 passed, 1 failed");

  // A timed path whose phases are merged back into one segment (the old accelerate-cruise-brake segments)
  // fails the timing identity; one whose speed exceeds max_speed fails too.
  // deno-lint-ignore no-explicit-any
  const timedPath = structuredClone(paths.find((p: any) => p.maxSpeed && p.segments.length > 2)) as any;
  const [a, b] = timedPath.segments;
  expect(a.duration).toBeGreaterThan(0);
  const merged = structuredClone(timedPath);
  merged.segments[0].duration = a.duration + b.duration;
  const badTime = follow([merged]);
  expect(badTime.status).toBe(1);
  expect(badTime.out).toMatch(/duration|timing|end/);
  const fast = structuredClone(timedPath);
  fast.maxSpeed = Math.max(a.end_speed, b.end_speed) / 2;
  const badSpeed = follow([fast]);
  expect(badSpeed.status).toBe(1);
  expect(badSpeed.out).toContain("above max_speed");
}, 300_000);

test(
  "a stream's updates, applied in Python as a client would, give one joined path to the goal",
  async () => {
    await call(srv.client, "PutMap", { id: "follow-stream", movingai: walledRoomText(40, 20) });
    const start = { x: 3.5, y: 10.5, heading: 0 };
    const goal = { x: 36.5, y: 10.5, tolerance: 0.5 };
    const st = srv.client.Stream();
    // deno-lint-ignore no-explicit-any
    const updates: any[] = [];
    const waitFor = async (n: number) => {
      for (let i = 0; i < 1200 && updates.length < n; i++) await new Promise((r) => setTimeout(r, 25));
      expect(updates.length).toBeGreaterThanOrEqual(n);
    };
    st.on("data", (u: unknown) => updates.push(u));
    st.on("error", () => {});
    st.write({
      plan: { map: { id: "follow-stream" }, unit: { name: "tank" }, start, goal, planner: "PLANNER_HYBRID" },
    });
    await waitFor(2); // initial, refined
    st.write({ progress: { distance: 6 } });
    await new Promise((r) => setTimeout(r, 100));
    await call(srv.client, "PatchMap", {
      map: { id: "follow-stream" },
      edits: [{ x: 22, y: 1, width: 1, height: 15, tile: "@" }],
    });
    await waitFor(3);
    st.end();
    expect(updates[2].kind).toBe("UPDATE_KIND_REPLANNED");
    expect(updates[2].replace_from_segment).toBeGreaterThanOrEqual(0);
    const stream = { name: "stream", start, goal, goalTolerance: 0.5, ignoreGoalHeading: true, updates };
    const ok = follow([stream]);
    expect(ok.out).toContain("1 passed, 0 failed");
    expect(ok.status).toBe(0);
    // Applied wrongly (the replacement appended after the whole old path) the joins break.
    const wrong = structuredClone(stream);
    wrong.updates[2].replace_from_segment = wrong.updates[1].plan.segments.length - 1;
    wrong.updates[2].replace_from_distance = wrong.updates[1].plan.segments.at(-1).length;
    const bad = follow([wrong]);
    expect(bad.status).toBe(1);
  },
  120_000,
);
