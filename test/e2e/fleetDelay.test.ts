/**
 * End-to-end delay propagation over gRPC (fleetShift.ts): on an open field a unit follows another along the same
 * row; the leader reports at t = 2.6 the pose its trajectory had at t = 1.6 (one second late). The follower's
 * trajectory is held for the delay rather than halted: after the repair nobody is waiting, and the independent
 * checker (test/helpers/fleetCheck.ts) finds no overlap and every unit arriving.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { call, startServer, type TestServer } from "../helpers/server.ts";
import { checkFleet, type CUnit, unitPose, unitsFromUpdates } from "../helpers/fleetCheck.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

let srv: TestServer;
const FIELD = Array.from({ length: 24 }, () => ".".repeat(24));

beforeAll(async () => {
  srv = await startServer(["--no-demo"]);
  const movingai = ["type octile", "height 24", "width 24", "map", ...FIELD].join("\n");
  await call(srv.client, "PutMap", { id: "field", movingai });
}, 60_000);

afterAll(async () => {
  await srv?.stop();
});

test(
  "a leader's delay over gRPC: the moving follower is not stopped dead, nobody waits, no overlap, all arrive",
  async () => {
    const fleet = srv.client.Fleet();
    const updates: Any[] = [];
    const acks = new Map<number, () => void>();
    fleet.on("data", (u: Any) => {
      updates.push(u);
      if (u.synced) acks.get(u.synced_time)?.();
    });
    // The server's shutdown at the end ends the call with UNAVAILABLE: not this test's concern.
    fleet.on("error", () => {});
    const sync = (time: number) =>
      new Promise<void>((res) => {
        acks.set(time, res);
        fleet.write({ sync: { time } });
      });
    const jobs = [
      { id: "L", x: 4.5, y: 5.5, gx: 20.5, gy: 5.5 },
      { id: "F", x: 1.5, y: 5.5, gx: 17.5, gy: 5.5 },
    ];
    fleet.write({ open: { map: { id: "field" } } });
    for (const j of jobs) {
      fleet.write({
        unit: {
          id: j.id,
          unit: { name: "soldier" },
          pose: { x: j.x, y: j.y },
          goal: { x: j.gx, y: j.gy },
          time: 0,
        },
      });
    }
    await sync(0);
    // With the soldier's limits (src/units/profiles.ts): the checker reports speed changes beyond them.
    const units = (): CUnit[] =>
      unitsFromUpdates(jobs, updates, 0.3, { maxSpeed: 2, acceleration: 4, deceleration: 4 });
    const leader = units()[0];
    const endOf = (id: string, ts: Any[]) => ts.filter((t: Any) => t.unit_id === id).at(-1).end_time;
    const oldEnds = ["L", "F"].map((id) => endOf(id, updates.flatMap((u) => u.trajectories)));
    const before = updates.length;
    fleet.write({ progress: { id: "L", pose: unitPose(leader, 1.6).pose, time: 2.6 } });
    await sync(2.6);
    fleet.end();
    const after = updates.slice(before).flatMap((u) => u.trajectories);
    expect(after.map((t: Any) => t.unit_id)).toContain("L");
    for (const t of after) expect(t.status, t.unit_id).toBe("moving");
    // The follower drives at t = 2.6: it is not stopped dead to shift it (delay propagation takes only units at
    // rest), so whatever the repair does, both arrive and nobody changes speed faster than it can.
    expect(oldEnds.every((e: number) => e > 0)).toBe(true);
    expect(updates.flatMap((u) => u.errors ?? [])).toEqual([]);
    const report = checkFleet(FIELD, units(), { step: 0.02 });
    expect(report.overlaps).toEqual([]);
    // (L itself jumps back to where it reported being: a report moves a unit, the checker sees it as a speed jump.)
    expect(report.speedErrors.filter((e) => e.id !== "L")).toEqual([]);
    expect(report.wallContacts).toEqual([]);
    expect(report.arrived.sort()).toEqual(["F", "L"]);
  },
  60_000,
);
