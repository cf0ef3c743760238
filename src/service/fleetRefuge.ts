/**
 * Where a waiting fleet unit can step aside (the article's yielding, done as a plan): tile centres near it
 * that it fits on and that keep clear of every other unit's remaining path and standing poses. Units yield to
 * the right (Pinter): a refuge on the unit's right-hand side, seen along the way it is about to drive, comes
 * before the others when it is at most RIGHT_SLACK tiles farther than the nearest; ties are broken by distance,
 * then row, then column, so the choice is deterministic. "Right" is as the map is drawn, row 0 at the top (y
 * grows downward, docs/segments.md): facing +x, the right-hand side is +y.
 *
 * @module
 */
import type { Pose } from "../geometry/types.ts";
import { poseAlong } from "../geometry/segment.ts";
import type { PassLayer } from "../maps/grid.ts";
import { fittingHeading } from "./poseGate.ts";
import type { FleetScheduler, FleetUnitState } from "./fleetScheduler.ts";

/** Refuges planned per unit (nearest first). */
export const REFUGE_CANDIDATES = 3;

/** How far (tiles, Chebyshev) a refuge may be from the unit. */
const REFUGE_REACH = 10;

/** How much farther (tiles) than the nearest refuge a refuge on the right-hand side may be and still go first. */
export const RIGHT_SLACK = 3;

/** How far (tiles) to the right of the line of travel a refuge's centre must be to count as on the right. */
const RIGHT_MIN = 0.5;

/**
 * The heading `w` is about to drive along from `pose`: its path's first segment (turned round when it reverses),
 * else its pose's heading.
 */
export function travelHeading(w: FleetUnitState, pose: Pose): number {
  const seg = w.path.find((s) => s.length > 0);
  if (!seg) return pose.heading;
  return seg.direction < 0 ? seg.start.heading + Math.PI : seg.start.heading;
}

/**
 * Orders refuge candidates for a unit at `pose` driving along `heading`: those on its right-hand side (beside or
 * ahead of it, not behind) within RIGHT_SLACK of the nearest first, then the rest; each group nearest first,
 * then by row, then by column.
 */
export function rightHandFirst(candidates: Pose[], pose: Pose, heading: number): Pose[] {
  // The right-hand side as drawn (y down): heading + pi/2.
  const rx = -Math.sin(heading), ry = Math.cos(heading);
  const keyed = candidates.map((c) => {
    const d = Math.hypot(c.x - pose.x, c.y - pose.y);
    const side = (c.x - pose.x) * rx + (c.y - pose.y) * ry;
    // Aside, not back: a refuge behind the unit sends it back past where it stands now (another unit's goal,
    // often, once that one has driven through).
    const ahead = (c.x - pose.x) * ry - (c.y - pose.y) * rx;
    return { c, d, right: side >= RIGHT_MIN && ahead >= -RIGHT_MIN };
  });
  const nearest = keyed.reduce((m, k) => Math.min(m, k.d), Infinity);
  const rank = (k: (typeof keyed)[number]) => (k.right && k.d <= nearest + RIGHT_SLACK ? 0 : 1);
  keyed.sort((a, b) => rank(a) - rank(b) || a.d - b.d || a.c.y - b.c.y || a.c.x - b.c.x);
  return keyed.map((k) => k.c);
}

/**
 * Refuge candidates for unit `w` standing at `pose`: tile centres within REFUGE_REACH where it fits, farther than
 * both bounding radii plus a margin from every other unit's remaining path and standing poses, right-hand side
 * first (see {@link rightHandFirst}); the first `count`.
 */
export function refuges(
  layer: PassLayer,
  sched: FleetScheduler,
  w: FleetUnitState,
  pose: Pose,
  count = REFUGE_CANDIDATES,
): Pose[] {
  const { width, height } = layer;
  const x0 = Math.max(0, Math.floor(pose.x) - REFUGE_REACH),
    x1 = Math.min(width - 1, Math.floor(pose.x) + REFUGE_REACH);
  const y0 = Math.max(0, Math.floor(pose.y) - REFUGE_REACH),
    y1 = Math.min(height - 1, Math.floor(pose.y) + REFUGE_REACH);
  const cols = x1 - x0 + 1;
  const near = new Uint8Array(cols * (y1 - y0 + 1));
  const mark = (x: number, y: number, r: number) => {
    for (let ty = Math.max(y0, Math.floor(y - r)); ty <= Math.min(y1, Math.floor(y + r)); ty++) {
      for (let tx = Math.max(x0, Math.floor(x - r)); tx <= Math.min(x1, Math.floor(x + r)); tx++) {
        if ((tx + 0.5 - x) ** 2 + (ty + 0.5 - y) ** 2 < r * r) near[(ty - y0) * cols + tx - x0] = 1;
      }
    }
  };
  for (const o of sched.units.values()) {
    if (o.id === w.id) continue;
    const r = w.unit.boundingRadius + o.unit.boundingRadius + 0.3;
    const start = o.traj.startPose;
    mark(start.x, start.y, r);
    for (const segs of [o.traj.segments, o.path]) {
      for (const seg of segs) {
        // A segment stays within its length of its start: skip those that cannot reach the window.
        const dx = Math.max(x0 - seg.start.x, seg.start.x - x1 - 1, 0);
        const dy = Math.max(y0 - seg.start.y, seg.start.y - y1 - 1, 0);
        if (Math.hypot(dx, dy) > seg.length + r) continue;
        for (let u = 0; u <= seg.length + 0.25; u += 0.25) {
          const p = poseAlong(seg, u);
          mark(p.x, p.y, r);
        }
      }
    }
  }
  const out: Pose[] = [];
  for (let ty = y0; ty <= y1; ty++) {
    for (let tx = x0; tx <= x1; tx++) {
      if (near[(ty - y0) * cols + tx - x0]) continue;
      const x = tx + 0.5, y = ty + 0.5;
      if (Math.hypot(x - pose.x, y - pose.y) < 1) continue;
      const heading = fittingHeading(layer, x, y, undefined, w.unit.footprint);
      if (heading !== null) out.push({ x, y, heading });
    }
  }
  return rightHandFirst(out, pose, travelHeading(w, pose)).slice(0, count);
}
