/**
 * Issue 12's narrow-passage scenarios at bench size: two groups swapping ends through a one-tile corridor with
 * passing bays, and a group queueing through a one-lane gate. Run over gRPC by bench/fleet.ts like the other
 * fleet scenarios (with detours and with `--fleet-detours 0`, the peer); the target is 100% arriving.
 *
 * @module
 */
import type { Spec } from "./fleetCircle.ts";

/** Start spots in a room: tile centres 2 tiles apart, `cols` x `rows` from (x0, y0). */
function spots(x0: number, y0: number, cols: number, rows: number): { x: number; y: number }[] {
  const out = [];
  for (let j = 0; j < rows; j++) {
    for (let i = 0; i < cols; i++) out.push({ x: x0 + 2 * i + 0.5, y: y0 + 2 * j + 0.5 });
  }
  return out;
}

/**
 * Two rooms (9 x 9 inside) joined by a one-tile corridor 40 tiles long with a two-tile passing bay above it every
 * 8 tiles; `perGroup` soldiers (at most 16) in each room, each to a spot between the other group's starts in the other room.
 */
export function corridorScenario(perGroup: number): { rows: string[]; specs: Spec[] } {
  const room = 9, corridor = 40, w = 2 * room + corridor + 2, h = room + 2, cy = 5;
  const rows = Array.from({ length: h }, (_, y) =>
    Array.from({ length: w }, (_, x) => {
      if (x === 0 || y === 0 || x === w - 1 || y === h - 1) return "@";
      if (x <= room || x >= w - 1 - room) return ".";
      if (y === cy) return ".";
      const c = x - room - 1;
      return y === cy - 1 && c % 8 >= 3 && c % 8 <= 4 ? "." : "@";
    }).join(""));
  // Goals on the spots between the other group's starts (a goal on a start waits for that unit to leave).
  const mirror = (p: { x: number; y: number }) => ({ x: w - 1 - p.x, y: p.y });
  const left = spots(1, 1, 4, 4).slice(0, perGroup), leftGoal = spots(2, 2, 4, 4).slice(0, perGroup);
  const specs: Spec[] = [];
  left.forEach((p, i) => {
    const g = mirror(leftGoal[i]);
    specs.push({ id: `a${i}`, x: p.x, y: p.y, gx: g.x, gy: g.y });
  });
  left.forEach((p, i) => {
    const s = mirror(p);
    specs.push({ id: `b${i}`, x: s.x, y: s.y, gx: leftGoal[i].x, gy: leftGoal[i].y });
  });
  return { rows, specs };
}

/** A 30 x 30 yard split by a wall with a one-tile gate; `n` soldiers (at most 49) above it, each to the mirror spot below. */
export function gateScenario(n: number): { rows: string[]; specs: Spec[] } {
  const side = 30, wall = 15, gate = 15;
  const rows = Array.from({ length: side }, (_, y) =>
    Array.from({ length: side }, (_, x) => {
      if (x === 0 || y === 0 || x === side - 1 || y === side - 1) return "@";
      return y === wall && x !== gate ? "@" : ".";
    }).join(""));
  const top = spots(1, 1, 7, 7).slice(0, n);
  const specs = top.map((p, i) => ({ id: `g${i}`, x: p.x + 7, y: p.y, gx: p.x + 7, gy: side - 1 - p.y }));
  return { rows, specs };
}

/** The note under the group rows. */
export const GROUPS_NOTE =
  "Corridor: two groups of soldiers in rooms 9 x 9, each to a spot between the other group's starts in the " +
  "other room, through a " +
  "one-tile corridor 40 tiles long with a two-tile passing bay every 8 tiles. Gate: soldiers in a 7 x 7 block " +
  "2 tiles apart above a wall, each to its mirror spot below, through a one-tile gate.";
