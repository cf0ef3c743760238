/**
 * The article's simple smoothing (Listing 1): from a check point, skip waypoints while the unit can walk
 * straight from the check point to the waypoint after; otherwise keep the waypoint and make it the new check
 * point.
 *
 * The result is never longer than the grid path (triangle inequality). The cost bound for a shortcut is the
 * highest cost the replaced grid steps themselves cross (for a wide unit that includes tiles beside the path
 * its disc passes over), so a shortcut never crosses costlier terrain than the steps it replaces, and each
 * kept grid step passes its own bound. Hence every consecutive pair of
 * the result is walkable whenever the grid steps are (which holds for grid paths from GridSpace with the same
 * r: the clearance and no-corner-cutting rules keep each step's capsule off blocked squares).
 *
 * @module
 */

import { type PassLayer, uniformCost } from "../maps/grid.ts";
import { sweptMaxCost } from "./walkable.ts";

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
  // Cost bound per grid step: what its own capsule sweeps (or, for a step that is itself not walkable, the
  // costs of its two tiles, so such a step stays and is not used to justify anything costlier).
  const tileCost = layer.tileCost;
  const stepCost = new Float64Array(n - 1);
  const uniform = uniformCost(layer);
  if (uniform > 0) {
    // Every bound is that one cost either way (swept, or the larger of two tile costs), so no sweeps.
    stepCost.fill(uniform);
  } else {
    for (let k = 0; k < n - 1; k++) {
      const swept = sweptMaxCost(layer, r, xs[k], ys[k], xs[k + 1], ys[k + 1], Infinity, uniform);
      stepCost[k] = swept !== Infinity ? swept : Math.max(tileCost[waypoints[k]], tileCost[waypoints[k + 1]]);
    }
  }

  const kept = new Int32Array(n);
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

  const out = new Float64Array(keptCount * 2);
  for (let j = 0; j < keptCount; j++) {
    out[2 * j] = xs[kept[j]];
    out[2 * j + 1] = ys[kept[j]];
  }
  return out;
}
