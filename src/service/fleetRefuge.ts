/**
 * Where a waiting fleet unit can step aside (the article's yielding, done as a plan): tile centres near it
 * that it fits on and that keep clear of every other unit's remaining path and standing poses.
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

/**
 * Refuge candidates for unit `w` standing at `pose`: tile centres within REFUGE_REACH where it fits, farther than
 * both bounding radii plus a margin from every other unit's remaining path and standing poses, nearest first.
 */
export function refuges(layer: PassLayer, sched: FleetScheduler, w: FleetUnitState, pose: Pose): Pose[] {
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
  out.sort((a, b) => Math.hypot(a.x - pose.x, a.y - pose.y) - Math.hypot(b.x - pose.x, b.y - pose.y));
  return out.slice(0, REFUGE_CANDIDATES);
}
