/**
 * The article's simple smoothing (Listing 1): from a check point, skip waypoints while the unit can walk
 * straight from the check point to the waypoint after; otherwise keep the waypoint and make it the new check
 * point.
 *
 * The result is never longer than the grid path (triangle inequality). On a uniform-cost layer a shortcut
 * needs only to be walkable. Where costs differ, a shortcut is taken only when it costs no more than the grid
 * stretch it replaces by the unit's cost model (src/motion/pathCost.ts: the terrain integrated along the
 * line its reference point drives), so smoothing never makes the path dearer; its sweep must still overlap
 * no blocked tile. Every consecutive pair of the result is walkable whenever the grid steps are (which holds
 * for grid paths from GridSpace with the same r: the clearance and no-corner-cutting rules keep each step's
 * capsule off blocked squares).
 *
 * @module
 */

import { lineSegment } from "../geometry/segment.ts";
import { type PassLayer, uniformCost } from "../maps/grid.ts";
import { segmentTerrainCost } from "../motion/pathCost.ts";
import { sweptMaxCost } from "./walkable.ts";

/** The terrain integral along the straight line between two points (the cost model's, exact per tile). */
function lineCost(layer: PassLayer, ax: number, ay: number, bx: number, by: number): number {
  const len = Math.hypot(bx - ax, by - ay);
  if (len === 0) return 0;
  return segmentTerrainCost(lineSegment({ x: ax, y: ay, heading: Math.atan2(by - ay, bx - ax) }, len), layer);
}

/**
 * Listing 1 on a layer whose costs differ: a shortcut from the check point to the waypoint after the current
 * one is taken when it is walkable (no blocked tile under its sweep) and its terrain integral is no more than
 * the grid steps' it replaces. Returns the kept waypoint indices' count in `kept`.
 */
function smoothByCost(
  layer: PassLayer,
  r: number,
  xs: Float64Array,
  ys: Float64Array,
  kept: Int32Array,
): number {
  const n = xs.length;
  // Prefix sums of the grid steps' integrals (each step's exact line integral).
  const prefix = new Float64Array(n);
  for (let k = 0; k < n - 1; k++) {
    prefix[k + 1] = prefix[k] + lineCost(layer, xs[k], ys[k], xs[k + 1], ys[k + 1]);
  }
  let keptCount = 0;
  kept[keptCount++] = 0;
  let check = 0;
  for (let current = 1; current < n - 1; current++) {
    const next = current + 1;
    const ok =
      lineCost(layer, xs[check], ys[check], xs[next], ys[next]) <= prefix[next] - prefix[check] + 1e-9 &&
      sweptMaxCost(layer, r, xs[check], ys[check], xs[next], ys[next], Infinity, 0) !== Infinity;
    if (ok) continue;
    kept[keptCount++] = current;
    check = current;
  }
  kept[keptCount++] = n - 1;
  return keptCount;
}

/**
 * Smooths a tile path (tile ids, start first) for a disc of radius r (r <= 0: point unit); returns the kept
 * waypoints as (x, y) pairs at tile centers, start and end included.
 */
export function smoothPath(layer: PassLayer, r: number, waypoints: Int32Array, width: number): Float64Array {
  const n = waypoints.length;
  if (n <= 2) {
    const out = new Float64Array(n * 2);
    for (let i = 0; i < n; i++) {
      out[2 * i] = (waypoints[i] % width) + 0.5;
      out[2 * i + 1] = ((waypoints[i] / width) | 0) + 0.5;
    }
    return out;
  }
  const xs = new Float64Array(n);
  const ys = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    xs[i] = (waypoints[i] % width) + 0.5;
    ys[i] = ((waypoints[i] / width) | 0) + 0.5;
  }
  const kept = new Int32Array(n);
  const uniform = uniformCost(layer);
  if (!(uniform > 0)) return keptPoints(xs, ys, kept, smoothByCost(layer, r, xs, ys, kept));
  // Uniform cost: every step's bound is that one cost, so a shortcut needs only to be walkable.
  const stepCost = new Float64Array(n - 1).fill(uniform);
  let keptCount = 0;
  kept[keptCount++] = 0;
  let check = 0;
  // Highest step bound on the grid path from the check point to the current waypoint.
  let bound = stepCost[0];
  // True when check -> current was itself swept and passed (not merely a grid step).
  let verified = false;
  for (let current = 1; current < n - 1; current++) {
    const extended = Math.max(bound, stepCost[current]);
    const cx = xs[current] - xs[check], cy = ys[current] - ys[check];
    const sx = xs[current + 1] - xs[current], sy = ys[current + 1] - ys[current];
    let ok: boolean;
    if (verified && cx * sy - cy * sx === 0 && cx * sx + cy * sy > 0) {
      // Straight on: the capsule to current + 1 is the passed one plus the next step's, so only that step
      // needs a sweep (tile-center coordinates are exact in floating point, so is the collinearity test).
      // Along a straight corridor this turns Listing 1's quadratic work into linear.
      ok = sweptMaxCost(
        layer,
        r,
        xs[current],
        ys[current],
        xs[current + 1],
        ys[current + 1],
        extended,
        uniform,
      ) <=
        extended;
    } else {
      ok =
        sweptMaxCost(layer, r, xs[check], ys[check], xs[current + 1], ys[current + 1], extended, uniform) <=
          extended;
    }
    if (ok) {
      bound = extended;
      verified = true;
      continue;
    }
    kept[keptCount++] = current;
    check = current;
    bound = stepCost[current];
    verified = false;
  }
  kept[keptCount++] = n - 1;
  return keptPoints(xs, ys, kept, keptCount);
}

function keptPoints(xs: Float64Array, ys: Float64Array, kept: Int32Array, keptCount: number): Float64Array {
  const out = new Float64Array(keptCount * 2);
  for (let j = 0; j < keptCount; j++) {
    out[2 * j] = xs[kept[j]];
    out[2 * j + 1] = ys[kept[j]];
  }
  return out;
}
