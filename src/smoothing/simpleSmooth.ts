/**
 * The article's simple smoothing (Listing 1): from a check point, skip waypoints while the unit can walk
 * straight to the one after; otherwise keep the waypoint and make it the new check point.
 *
 * The result is never longer than the grid path (triangle inequality) and every consecutive pair is walkable
 * for the unit's disc, over terrain no costlier than the grid path it replaces.
 *
 * @module
 */
import type { PassLayer } from "../maps/grid.ts";
import { walkable } from "./walkable.ts";

/**
 * Smooths a tile path (tile ids, start first) for a disc of radius r; returns the kept points as (x, y) pairs at
 * tile centers, start and end included.
 */
export function smoothPath(layer: PassLayer, r: number, path: Int32Array, width: number): Float64Array {
  const n = path.length;
  const cx = (i: number) => (path[i] % width) + 0.5;
  const cy = (i: number) => Math.floor(path[i] / width) + 0.5;
  if (n <= 2) {
    const out = new Float64Array(n * 2);
    for (let i = 0; i < n; i++) {
      out[2 * i] = cx(i);
      out[2 * i + 1] = cy(i);
    }
    return out;
  }
  const kept: number[] = [0];
  let check = 0;
  // Highest tile cost on the grid path from the check point to the candidate.
  let maxCost = layer.tileCost[path[0]];
  for (let i = 1; i < n - 1; i++) {
    const nextCost = Math.max(maxCost, layer.tileCost[path[i]], layer.tileCost[path[i + 1]]);
    if (walkable(layer, r, cx(check), cy(check), cx(i + 1), cy(i + 1), nextCost)) {
      maxCost = nextCost;
      continue;
    }
    kept.push(i);
    check = i;
    maxCost = Math.max(layer.tileCost[path[i]], layer.tileCost[path[i + 1]]);
  }
  kept.push(n - 1);
  const out = new Float64Array(kept.length * 2);
  kept.forEach((k, j) => {
    out[2 * j] = cx(k);
    out[2 * j + 1] = cy(k);
  });
  return out;
}
