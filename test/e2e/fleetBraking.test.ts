/**
 * End-to-end Fleet over gRPC: a unit halted while it moves (here by a goal change; the scheduler's haltAt is
 * also what the settle cascade, delay repairs and map patches use) brakes at its deceleration from the speed it
 * had instead of stopping dead, then drives its new path. Checked by the independent checker
 * (test/helpers/fleetCheck.ts) with the units' speed limits: no overlap, and no change of speed between steps
 * beyond what the unit's deceleration allows (the code before braking halts sent a trajectory standing at the
 * unit's pose at the change's time: an instant stop from 4 tiles/s).
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { call, startServer, type TestServer } from "../helpers/server.ts";
import { checkFleet, type CUnit, unitsFromUpdates, unitSpeed } from "../helpers/fleetCheck.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

const SIDE = 30;
const FIELD = Array.from({ length: SIDE }, () => ".".repeat(SIDE));
const TANK = { maxSpeed: 4, acceleration: 1.5, deceleration: 3 };

let srv: TestServer;

beforeAll(async () => {
  srv = await startServer(["--no-demo", "--fleet-detours", "0"]);
  const text = ["type octile", `height ${SIDE}`, `width ${SIDE}`, "map", ...FIELD].join("\n");
  await call(srv.client, "PutMap", { id: "field", movingai: text });
}, 60_000);

afterAll(async () => {
  await srv?.stop();
});

/** Everything a Fleet stream answered, by unit, as the checker takes it (tanks, with their speed limits). */
function checkerUnits(
  sent: { id: string; x: number; y: number; h: number; gx: number; gy: number }[],
  updates: Any[],
): CUnit[] {
  return unitsFromUpdates(sent, updates, 0.9, TANK);
}

/** A Fleet stream: send, sync (resolves on its acknowledgement), end; every update kept. */
function openFleet(map = "field", brakingEnvelopes = false) {
  const f = srv.client.Fleet();
  const updates: Any[] = [];
  const waiters = new Map<number, () => void>();
  f.on("data", (u: Any) => {
    updates.push(u);
    if (u.synced) waiters.get(u.synced_time)?.();
  });
  f.on("error", () => {});
  f.write({ open: { map: { id: map }, braking_envelopes: brakingEnvelopes } });
  return {
    updates,
    send: (m: Any) => f.write(m),
    sync: (time: number) =>
      new Promise<void>((resolve) => {
        waiters.set(time, resolve);
        f.write({ sync: { time } });
      }),
    end: () => f.end(),
  };
}

/** A tank cruising east along y = 15.5 at t = 3 when a wall column is patched at x = `wallX` (y 10-20). */
async function patchedAhead(id: string, wallX: number) {
  const text = ["type octile", `height ${SIDE}`, `width ${SIDE}`, "map", ...FIELD].join("\n");
  await call(srv.client, "PutMap", { id, movingai: text });
  const f = openFleet(id);
  const sent = [{ id: "a", x: 2.5, y: 15.5, h: 0, gx: 27.5, gy: 15.5 }];
  f.send({
    unit: {
      id: "a",
      unit: { name: "tank" },
      pose: { x: 2.5, y: 15.5, heading: 0 },
      goal: { x: 27.5, y: 15.5 },
      time: 0,
    },
  });
  await f.sync(0);
  await f.sync(3);
  const count = f.updates.length;
  await call(srv.client, "PatchMap", {
    map: { id },
    edits: [{ x: wallX, y: 10, width: 1, height: 11, tile: "@" }],
  });
  for (let i = 0; i < 1500 && !f.updates.slice(count).some((u: Any) => u.trajectories.length > 0); i++) {
    await new Promise((r) => setTimeout(r, 20));
  }
  await f.sync(3);
  f.end();
  const rows = FIELD.map((r, y) => (y >= 10 && y <= 20 ? r.slice(0, wallX) + "@" + r.slice(wallX + 1) : r));
  const units = checkerUnits(sent, f.updates);
  const after = f.updates.slice(count);
  return {
    report: checkFleet(rows, units, { step: 0.01 }),
    traj: after.flatMap((u: Any) => u.trajectories).find((t: Any) => t.unit_id === "a" && t.start_time === 3),
    errors: after.flatMap((u: Any) => u.errors),
  };
}

describe("Fleet braking", () => {
  test(
    "a wall patched ahead of a cruising tank: it brakes before it, or (within its braking distance) is stopped at once and told",
    async () => {
      // At t = 3 the tank is near x = 9.2 at 4 tiles/s; it needs 2.67 tiles (plus its 0.9 radius) to stop.
      const far = await patchedAhead("wall-far", 20);
      expect(far.traj.segments[0].start_speed).toBeCloseTo(4, 6);
      expect(far.errors).toEqual([]);
      expect(far.report.speedErrors).toEqual([]);
      expect(far.report.wallContacts).toEqual([]);
      const near = await patchedAhead("wall-near", 11);
      expect(near.traj.segments[0].start_speed ?? 0).toBe(0);
      expect(near.errors.map((e: Any) => [e.unit_id, e.code])).toEqual([["a", "FAILED_PRECONDITION"]]);
      expect(near.errors[0].message).toMatch(/braking distance \(2\.67 tiles at 4\.00 tiles\/s/);
      expect(near.report.wallContacts).toEqual([]);
    },
    60_000,
  );

  test.each([false, true])(
    "a goal changed while a tank drives at full speed: it brakes within its deceleration, then goes (braking_envelopes %s)",
    async (envelopes) => {
      const f = openFleet("field", envelopes);
      const sent = [
        { id: "a", x: 2.5, y: 15.5, h: 0, gx: 27.5, gy: 15.5 },
        { id: "b", x: 15.5, y: 3.5, h: Math.PI / 2, gx: 15.5, gy: 9.5 },
      ];
      for (const u of sent) {
        f.send({
          unit: {
            id: u.id,
            unit: { name: "tank" },
            pose: { x: u.x, y: u.y, heading: u.h },
            goal: { x: u.gx, y: u.gy },
            time: 0,
          },
        });
      }
      await f.sync(0);
      const v = unitSpeed(checkerUnits(sent, f.updates)[0], 3);
      expect(v).toBeCloseTo(4, 6);
      // At t = 3 "a" cruises at 4 tiles/s; its goal moves to the field's lower left.
      f.send({
        unit: { id: "a", unit: { name: "tank" }, pose: { x: 0, y: 0 }, goal: { x: 4.5, y: 25.5 }, time: 3 },
      });
      await f.sync(3);
      f.end();
      const units = checkerUnits([{ ...sent[0], gx: 4.5, gy: 25.5 }, sent[1]], f.updates);
      const a: Any = units[0].trajectories.find((t: Any) => t.start_time === 3);
      expect(a).toBeDefined();
      // It starts at the speed it had and slows down no faster than its deceleration until it stops.
      expect(a.segments[0].start_speed).toBeCloseTo(v, 6);
      let speed = a.segments[0].start_speed;
      for (const s of a.segments) {
        expect(Math.abs(s.start_speed - speed)).toBeLessThan(1e-6);
        if (s.duration > 0) expect((s.start_speed - s.end_speed) / s.duration).toBeLessThanOrEqual(3 + 1e-6);
        speed = s.end_speed;
      }
      const report = checkFleet(FIELD, units, { step: 0.01 });
      expect(report.speedErrors).toEqual([]);
      expect(report.overlaps).toEqual([]);
      expect(report.wallContacts).toEqual([]);
      expect(report.contractErrors).toEqual([]);
      expect(report.arrived.sort()).toEqual(["a", "b"]);
    },
    60_000,
  );
});
