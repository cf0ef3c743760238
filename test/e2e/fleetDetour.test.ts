/**
 * End-to-end Fleet detours over gRPC (issue 12: "units crossing an open field in all directions", makespan within
 * 1.3x of the slowest unit's solo duration): soldiers on a circle, each through the centre to the far side. With
 * timing alone (a server with `--fleet-detours 0`, the code before detours) everyone queues for the centre and the
 * bound fails; with detours (the default) late units replan around the crowd and it holds. Both are checked by the
 * independent checker (test/helpers/fleetCheck.ts): no overlap, no wall contact, every unit arrives. The detour
 * server's pass gets a budget far beyond its need (`--fleet-detour-ms 600000`) so that the outcome does not depend
 * on the machine's speed; a third server with `--fleet-detour-ms 0` shows the budget is honoured (no round starts).
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { call, startServer, type TestServer } from "../helpers/server.ts";
import { checkFleet, type CUnit, unitsFromUpdates } from "../helpers/fleetCheck.ts";
import { fleetToSync } from "../helpers/fleetStream.ts";
import { movingAiText } from "../helpers/warehouse.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

const N = 20, R = 8, SIDE = 26, C = SIDE / 2;
/** An open field with a wall border. */
const FIELD = Array.from(
  { length: SIDE },
  (_, y) => (y === 0 || y === SIDE - 1 ? "@".repeat(SIDE) : "@" + ".".repeat(SIDE - 2) + "@"),
);
/**
 * N soldiers evenly on a circle, each to the tile 1.5 tiles beyond the point just past the opposite one; starts
 * and goals on tile centres (the line planners start and end their paths there).
 */
const UNITS = Array.from({ length: N }, (_, i) => {
  const a = (2 * Math.PI * i) / N, b = a + Math.PI + Math.PI / N;
  return {
    id: `c${i}`,
    x: Math.floor(C + R * Math.cos(a)) + 0.5,
    y: Math.floor(C + R * Math.sin(a)) + 0.5,
    gx: Math.floor(C + (R + 1.5) * Math.cos(b)) + 0.5,
    gy: Math.floor(C + (R + 1.5) * Math.sin(b)) + 0.5,
  };
});

let detours: TestServer, peer: TestServer, noTime: TestServer;

beforeAll(async () => {
  [detours, peer, noTime] = await Promise.all([
    startServer(["--no-demo", "--fleet-detour-ms", "600000"]),
    startServer(["--no-demo", "--fleet-detours", "0"]),
    startServer(["--no-demo", "--fleet-detour-ms", "0"]),
  ]);
  for (const s of [detours, peer, noTime]) {
    await call(s.client, "PutMap", { id: "field", movingai: movingAiText(FIELD) });
  }
}, 60_000);

afterAll(async () => {
  await Promise.all([detours?.stop(), peer?.stop(), noTime?.stop()]);
});

/** Every unit added at t = 0 over one Fleet stream, then a sync; the checker's report on what was answered. */
async function crossing(srv: TestServer) {
  const updates = await fleetToSync(srv.client, "field", UNITS);
  const units: CUnit[] = unitsFromUpdates(UNITS, updates);
  return { report: checkFleet(FIELD, units, { step: 0.02 }), updates };
}

/** The slowest unit's solo duration: each unit's path planned alone (PlanMany), the longest. */
async function slowestSolo(srv: TestServer): Promise<number> {
  const res = await call(srv.client, "PlanMany", {
    requests: UNITS.map((s) => ({
      map: { id: "field" },
      unit: { name: "soldier" },
      start: { x: s.x, y: s.y },
      goal: { x: s.gx, y: s.gy },
    })),
  });
  expect(res.results.every((r: Any) => r.code === 0)).toBe(true);
  return Math.max(...res.results.map((r: Any) => Number(r.response.duration)));
}

describe("Fleet detours", () => {
  test(
    "20 units crossing a field through its centre: makespan within 1.3x the slowest solo drive",
    async () => {
      const solo = await slowestSolo(detours);
      const [withDetours, timingOnly] = await Promise.all([crossing(detours), crossing(peer)]);
      for (const { report } of [withDetours, timingOnly]) {
        expect(report.contractErrors).toEqual([]);
        expect(report.overlaps).toEqual([]);
        expect(report.wallContacts).toEqual([]);
      }
      expect(withDetours.report.arrived.length).toBe(N);
      // Timing alone queues everyone for the centre (the code before detours): the bound fails there...
      expect(timingOnly.report.makespan).toBeGreaterThan(1.3 * solo);
      // ...and holds with detours.
      expect(withDetours.report.makespan).toBeLessThanOrEqual(1.3 * solo);
      // Some units really drove another way: their latest path leaves the straight line from start to goal.
      const latest = new Map<string, Any>();
      for (const u of withDetours.updates) for (const t of u.trajectories) latest.set(t.unit_id, t);
      const away = UNITS.filter((s) => {
        const len = Math.hypot(s.gx - s.x, s.gy - s.y);
        const off = (p: Any) => Math.abs((s.gx - s.x) * (p.y - s.y) - (s.gy - s.y) * (p.x - s.x)) / len;
        return latest.get(s.id).segments.some((seg: Any) => off(seg.end) > 1);
      });
      expect(away.length).toBeGreaterThan(0);
      // The units sent before the pass ran (the first update) are not among those it detoured.
      const sent = withDetours.updates.filter((u: Any) => u.trajectories.length > 0);
      const first = new Set(sent[0].trajectories.map((t: Any) => t.unit_id));
      for (const s of away) expect(first.has(s.id)).toBe(false);
    },
    60_000,
  );

  test(
    "units the detour pass cannot change are sent before it runs, and it does not change them",
    async () => {
      const { report, updates } = await crossing(detours);
      expect(report.overlaps).toEqual([]);
      const synced = updates.findIndex((u: Any) => u.synced);
      const sent = updates.slice(0, synced + 1).filter((u: Any) => u.trajectories.length > 0);
      // Units that set out at once (not late) come first, in an update of their own; the rest after the pass.
      expect(sent.length).toBeGreaterThan(1);
      const first = sent[0].trajectories.map((t: Any) => t.unit_id);
      expect(first.length).toBeGreaterThan(0);
      expect(first.length).toBeLessThan(N);
      const later = new Set(sent.slice(1).flatMap((u: Any) => u.trajectories).map((t: Any) => t.unit_id));
      for (const id of first) expect(later.has(id)).toBe(false);
      // Every unit had its trajectory by the sync.
      expect(new Set([...first, ...later]).size).toBe(N);
    },
    60_000,
  );

  test("a detour budget of 0 ms starts no round: the answer is the timing-only one", async () => {
    const [spent, timingOnly] = await Promise.all([crossing(noTime), crossing(peer)]);
    expect(spent.report.overlaps).toEqual([]);
    expect(spent.report.wallContacts).toEqual([]);
    const ends = (r: typeof spent) => {
      const latest = new Map<string, number>();
      for (const u of r.updates) for (const t of u.trajectories) latest.set(t.unit_id, Number(t.end_time));
      return UNITS.map((s) => latest.get(s.id));
    };
    // No unit leaves its planned straight line (a detour's via point would lengthen it). End times are not
    // compared with the peer's: the two servers may batch the 20 unit messages differently.
    const driven = (r: typeof spent) => {
      const latest = new Map<string, Any>();
      for (const u of r.updates) for (const t of u.trajectories) latest.set(t.unit_id, t);
      return UNITS.map((s) => {
        const segs = latest.get(s.id)?.segments ?? [];
        return segs.reduce((d: number, g: Any) => d + Number(g.length ?? 0), 0) -
          Math.hypot(s.gx - s.x, s.gy - s.y);
      });
    };
    for (const extra of driven(spent)) expect(Math.abs(extra)).toBeLessThan(1e-6);
    for (const extra of driven(timingOnly)) expect(Math.abs(extra)).toBeLessThan(1e-6);
    expect(ends(spent).every((e) => e !== undefined)).toBe(true);
  }, 60_000);
});
