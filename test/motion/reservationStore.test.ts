/**
 * The reservation table's flat storage (motion/reservationStore.ts) against a straightforward reference: after
 * random adds, replacements, removals, roll-backs to earlier trajectories and compactions (slots freed and reused,
 * the pool and the bucket hash grown many times), every query answers as the live units checked one at a time,
 * each alone in a table of its own (no shared buckets, no per-cell index shared with others, nothing dead).
 */
import { describe, expect, test } from "vitest";
import { arcSegment, lineSegment } from "../../src/geometry/segment.ts";
import { applySpeedProfile, splitAtSpeedPhases } from "../../src/motion/speedProfile.ts";
import { type Reservation, ReservationTable } from "../../src/motion/reservations.ts";
import { SampleStore } from "../../src/motion/reservationStore.ts";
import { standing, type Trajectory } from "../../src/motion/trajectory.ts";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";

const SOLDIER = BUILTIN_PROFILES.soldier;
const SIZE = 30;

function randomSource(seed: number) {
  return () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
}

/** A random drive (a line, or a line then an arc), or now and then a unit standing from some time on. */
function randomTrajectory(rnd: () => number): Trajectory {
  const p = { x: 2 + rnd() * (SIZE - 4), y: 2 + rnd() * (SIZE - 4), heading: rnd() * 2 * Math.PI };
  if (rnd() < 0.15) return standing(p, rnd() * 3);
  const segs = [lineSegment(p, 1 + rnd() * 5)];
  if (rnd() < 0.5) {
    segs.push(arcSegment(segs[0].end, (rnd() < 0.5 ? 1 : -1) * (0.3 + rnd() * 0.5), 1 + rnd() * 3));
  }
  applySpeedProfile(segs, SOLDIER);
  return { startTime: rnd() * 4, startPose: p, segments: splitAtSpeedPhases(segs, SOLDIER) };
}

/** The reference: each live unit alone in a table; the earliest conflict time, the units met and each one's. */
function reference(live: Map<string, Reservation>, cand: Reservation, from: number, envelopes: boolean) {
  const met = new Map<string, { time: number; forever: boolean }>();
  for (const [id, r] of live) {
    if (id === cand.id) continue;
    const alone = new ReservationTable(SIZE, SIZE, 0.05, envelopes);
    alone.add(r);
    const c = alone.firstConflict(cand, from);
    if (c) met.set(id, { time: c.time, forever: c.forever });
  }
  const first = Math.min(...[...met.values()].map((c) => c.time));
  return { met, first };
}

describe("ReservationTable on its flat store", () => {
  for (const envelopes of [true, false]) {
    test(`answers as each live unit alone in a table (braking envelopes ${envelopes ? "on" : "off"})`, () => {
      const rnd = randomSource(envelopes ? 11 : 23);
      const table = new ReservationTable(SIZE, SIZE, 0.05, envelopes);
      const live = new Map<string, Reservation>();
      const history = new Map<string, Reservation[]>();
      const make = (id: string): Reservation => ({
        id,
        traj: randomTrajectory(rnd),
        radius: 0.3 + 0.1 * (Number(id.slice(1)) % 2),
        speed: SOLDIER.maxSpeed,
        deceleration: SOLDIER.deceleration,
      });
      const N = 40;
      for (let i = 0; i < N; i++) {
        const r = make(`u${i}`);
        history.set(r.id, [r]);
        live.set(r.id, r);
        table.add(r);
      }
      let checked = 0, conflicts = 0;
      for (let step = 0; step < 240; step++) {
        // Compactions free the removed units' slots; later adds reuse them, and roll-backs to a compacted
        // trajectory sample it again.
        if (step % 60 === 59) table.compact();
        const id = `u${Math.floor(rnd() * N)}`, roll = rnd();
        if (roll < 0.25) {
          table.remove(id);
          live.delete(id);
        } else if (roll < 0.6) {
          const r = make(id);
          history.get(id)!.push(r);
          live.set(id, r);
          table.add(r);
        } else {
          const past = history.get(id)!;
          const r = past[Math.floor(rnd() * past.length)];
          live.set(id, r);
          table.add(r);
        }
        if (step % 20 !== 0) continue;
        expect([...table.ids()].sort()).toEqual([...live.keys()].sort());
        for (let q = 0; q < 6; q++) {
          const cand = make(rnd() < 0.2 ? id : "q");
          if (rnd() < 0.2) cand.traj = standing(cand.traj.startPose, 0);
          const from = rnd() * 3;
          const want = reference(live, cand, from, envelopes);
          const got = table.firstConflict(cand, from);
          checked++;
          if (want.met.size === 0) {
            expect(got).toBeNull();
            continue;
          }
          conflicts++;
          // The earliest time; the unit named is one met then, with its own forever flag.
          expect(got).not.toBeNull();
          expect(got!.time).toBeCloseTo(want.first, 9);
          expect(want.met.get(got!.id)?.time).toBeCloseTo(want.first, 9);
          expect(got!.forever).toBe(want.met.get(got!.id)!.forever);
          expect([...table.conflictsWith(cand, from)].sort()).toEqual([...want.met.keys()].sort());
          // A hint may answer a later conflict first, never none.
          expect(table.firstConflict(cand, from, undefined, rnd() * 3)).not.toBeNull();
        }
      }
      expect(checked).toBe(72);
      // Most queries meet someone (the comparison is not between empty answers), not all.
      expect(conflicts).toBeGreaterThan(10);
      expect(conflicts).toBeLessThan(checked);
    });
  }
});

describe("SampleStore", () => {
  test("buckets keep their samples in linking order through growth, rehashes and unlinking", () => {
    const store = new SampleStore();
    const want = new Map<string, number[]>();
    const rnd = randomSource(5);
    // Enough samples to grow the slots (1024 at first) and the bucket hash (4096 places) several times.
    for (let i = 0; i < 10_000; i++) {
      const s = store.alloc();
      store.k[s] = Math.floor(rnd() * 400);
      store.cell[s] = Math.floor(rnd() * 60);
      store.x[s] = i;
      store.link(s);
      const key = `${store.k[s]},${store.cell[s]}`;
      want.set(key, [...want.get(key) ?? [], i]);
    }
    const chain = (k: number, cell: number) => {
      const out: number[] = [];
      for (let s = store.first(k, cell); s >= 0; s = store.next[s]) out.push(store.x[s]);
      return out;
    };
    for (const [key, xs] of want) {
      const [k, cell] = key.split(",").map(Number);
      expect(chain(k, cell)).toEqual(xs);
    }
    // Unlink the odd ones: the rest keep their order, and the freed slots are handed out again.
    store.unlinkWhere((s) => store.x[s] % 2 === 1);
    for (const [key, xs] of want) {
      const [k, cell] = key.split(",").map(Number);
      expect(chain(k, cell)).toEqual(xs.filter((x) => x % 2 === 0));
    }
    const again = store.alloc();
    expect(store.x[again] % 2).toBe(1);
    expect(store.first(401, 0)).toBe(-1);
  });
});
