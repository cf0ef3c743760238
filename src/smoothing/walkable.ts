/**
 * Exact straight-line walkability for a disc-shaped unit: the capsule swept by a disc of radius r along a
 * segment must not overlap the interior of any blocked tile square (tiles outside the map count as blocked),
 * and no tile the unit crosses may cost more than a given bound.
 *
 * Frame: tile (i, j) is the square [i, i+1] x [j, j+1]; its center is (i + 0.5, j + 0.5). The capsule overlaps
 * a square's interior iff the segment-to-square distance is < r, so touching at exactly r is allowed, matching
 * the clearance rule (a disc of radius r at a tile center is legal iff clearance >= r). Costs count for tiles
 * within distance < r (r > 0), or whose interior the segment enters (point unit).
 *
 * @module
 */

import { freeRadius, type PassLayer, uniformCost } from "../maps/grid.ts";

/**
 * Radius used for point units (r <= POINT_RADIUS): a line then cannot slip through the shared corner of two
 * diagonally blocked tiles nor run along a blocked tile's edge (distance 0 < POINT_RADIUS).
 */
export const POINT_RADIUS = 1e-6;

/** True if the closed segment (ax, ay)-(bx, by) meets the closed box [x0, x1] x [y0, y1] (Liang-Barsky). */
function segmentMeetsBox(
  ax: number,
  ay: number,
  dx: number,
  dy: number,
  x0: number,
  y0: number,
  x1: number,
  y1: number,
): boolean {
  // segmentEntersTile's closed twin (boundary rules differ), kept apart: the scan calls it per tile.
  let t0 = 0;
  let t1 = 1;
  // Each slab: p * t <= q.
  for (let k = 0; k < 4; k++) {
    const p = k === 0 ? -dx : k === 1 ? dx : k === 2 ? -dy : dy;
    const q = k === 0 ? ax - x0 : k === 1 ? x1 - ax : k === 2 ? ay - y0 : y1 - ay;
    if (p === 0) {
      if (q < 0) return false;
    } else {
      const t = q / p;
      if (p < 0) {
        if (t > t0) t0 = t;
      } else if (t < t1) t1 = t;
      if (t0 > t1) return false;
    }
  }
  return true;
}

/** True if the closed segment from (ax, ay) along (dx, dy) meets the open interior of tile square (i, j). */
export function segmentEntersTile(
  ax: number,
  ay: number,
  dx: number,
  dy: number,
  i: number,
  j: number,
): boolean {
  let t0 = 0;
  let t1 = 1;
  // Each open slab: p * t < q.
  for (let k = 0; k < 4; k++) {
    const p = k === 0 ? -dx : k === 1 ? dx : k === 2 ? -dy : dy;
    const q = k === 0 ? ax - i : k === 1 ? i + 1 - ax : k === 2 ? ay - j : j + 1 - ay;
    if (p === 0) {
      if (q <= 0) return false;
    } else {
      const t = q / p;
      if (p < 0) {
        if (t > t0) t0 = t;
      } else if (t < t1) t1 = t;
    }
  }
  // A point segment inside the square, or a piece of positive length crossing it.
  return t0 < t1 || (dx === 0 && dy === 0);
}

/** Squared distance from point (px, py) to the box [x0, x1] x [y0, y1]. */
function pointBoxDistance2(px: number, py: number, x0: number, y0: number, x1: number, y1: number): number {
  const dx = px < x0 ? x0 - px : px > x1 ? px - x1 : 0;
  const dy = py < y0 ? y0 - py : py > y1 ? py - y1 : 0;
  return dx * dx + dy * dy;
}

/** Squared distance from point (px, py) to the segment from (ax, ay) along (dx, dy). */
function pointSegmentDistance2(
  px: number,
  py: number,
  ax: number,
  ay: number,
  dx: number,
  dy: number,
): number {
  const len2 = dx * dx + dy * dy;
  let t = len2 > 0 ? ((px - ax) * dx + (py - ay) * dy) / len2 : 0;
  if (t < 0) t = 0;
  else if (t > 1) t = 1;
  const ex = ax + t * dx - px;
  const ey = ay + t * dy - py;
  return ex * ex + ey * ey;
}

/**
 * Squared distance between the segment (ax, ay)-(bx, by) and tile square (i, j). Two disjoint convex sets in
 * the plane are closest at a vertex of one of them, so endpoints-to-box and corners-to-segment suffice.
 */
export function segmentSquareDistSq(
  ax: number,
  ay: number,
  bx: number,
  by: number,
  i: number,
  j: number,
): number {
  const dx = bx - ax;
  const dy = by - ay;
  const x1 = i + 1;
  const y1 = j + 1;
  if (segmentMeetsBox(ax, ay, dx, dy, i, j, x1, y1)) return 0;
  let d = pointBoxDistance2(ax, ay, i, j, x1, y1);
  let e = pointBoxDistance2(bx, by, i, j, x1, y1);
  if (e < d) d = e;
  e = pointSegmentDistance2(i, j, ax, ay, dx, dy);
  if (e < d) d = e;
  e = pointSegmentDistance2(x1, j, ax, ay, dx, dy);
  if (e < d) d = e;
  e = pointSegmentDistance2(i, y1, ax, ay, dx, dy);
  if (e < d) d = e;
  e = pointSegmentDistance2(x1, y1, ax, ay, dx, dy);
  if (e < d) d = e;
  return d;
}

/** Below this certified advance (tiles) a stretch is tested exactly instead. */
const MIN_ADVANCE = 0.125;

/**
 * The largest tileCost the unit crosses moving from (ax, ay) to (bx, by): tiles within distance < r of the
 * segment, or for r <= 0 tiles whose interior the segment enters. Infinity if the capsule of radius
 * max(r, {@link POINT_RADIUS}) overlaps a blocked or off-map tile. Stops early, returning a value
 * > limit, as soon as the answer is known to exceed `limit`. Allocation-free.
 *
 * `uniform` is the layer's {@link uniformCost} (pass it when calling in a loop). On a uniform-cost layer the
 * answer is that cost or Infinity, and the layer's clearance decides most of the way: from a point p of the
 * segment whose free radius F (its tile's clearance less its distance to the tile center) exceeds the unit's
 * radius, the next F - radius of the segment is certified free (every capsule point there is nearer to that
 * tile center than its clearance, so in no blocked square). From the first point that clearance does not
 * certify, the rest of the segment is scanned tile by tile with distances to the whole segment, so the result
 * is the plain scan's. In open terrain a segment costs a few lookups instead of a scan of every tile along it;
 * in tight terrain, one lookup more than the plain scan.
 */
export function sweptMaxCost(
  layer: PassLayer,
  r: number,
  ax: number,
  ay: number,
  bx: number,
  by: number,
  limit: number,
  uniform: number = uniformCost(layer),
): number {
  if (uniform <= 0) return scannedMaxCost(layer, r, ax, ay, bx, by, limit);
  if (uniform > limit) return uniform;
  const rr = r > POINT_RADIUS ? r : POINT_RADIUS;
  const dx = bx - ax;
  const dy = by - ay;
  const length = Math.sqrt(dx * dx + dy * dy);
  const ux = length > 0 ? dx / length : 0;
  const uy = length > 0 ? dy / length : 0;
  let t = 0;
  for (;;) {
    const advance = freeRadius(layer, ax + ux * t, ay + uy * t) - rr;
    if (advance >= MIN_ADVANCE || (advance >= 0 && t >= length)) {
      t += advance;
      if (t >= length) return uniform;
    } else {
      // Not certified here: scan the rest in one pass (in tight terrain that is the plain scan plus one lookup;
      // piecewise scans cost more there than the certified steps save).
      const rest = scannedMaxCost(layer, r, ax, ay, bx, by, Infinity, t > 0 ? t / length : 0, 1);
      return rest === Infinity ? Infinity : uniform;
    }
  }
}

/**
 * {@link sweptMaxCost} by scanning the tiles near the part of the segment between the fractions `from` and
 * `to` of its length (any layer). Distances are always measured to the whole segment, so a part gives the
 * whole scan's verdict, with the same rounding, for every tile it visits.
 */
function scannedMaxCost(
  layer: PassLayer,
  r: number,
  ax: number,
  ay: number,
  bx: number,
  by: number,
  limit: number,
  from = 0,
  to = 1,
): number {
  const rr = r > POINT_RADIUS ? r : POINT_RADIUS;
  const r2 = rr * rr;
  const width = layer.width;
  const height = layer.height;
  const tileCost = layer.tileCost;
  const dx = bx - ax;
  const dy = by - ay;
  let max = 0;
  const ya = from === 0 ? ay : ay + from * dy;
  const yb = to === 1 ? by : ay + to * dy;
  const jFirst = Math.floor(Math.min(ya, yb) - rr);
  const jLast = Math.floor(Math.max(ya, yb) + rr);
  for (let j = jFirst; j <= jLast; j++) {
    // Part of the segment whose points can be within rr of row j: y in [j - rr, j + 1 + rr].
    let t0 = from;
    let t1 = to;
    if (dy !== 0) {
      let ta = (j - rr - ay) / dy;
      let tb = (j + 1 + rr - ay) / dy;
      // Ordered in place (as in geodesicBound's hitsGrown): a helper would have to return two numbers.
      if (ta > tb) {
        const swap = ta;
        ta = tb;
        tb = swap;
      }
      if (ta > t0) t0 = ta;
      if (tb < t1) t1 = tb;
      if (t0 > t1) continue;
    } else if (ay < j - rr || ay > j + 1 + rr) {
      continue;
    }
    const xa = ax + t0 * dx;
    const xb = ax + t1 * dx;
    const iFirst = Math.floor((xa < xb ? xa : xb) - rr);
    const iLast = Math.floor((xa < xb ? xb : xa) + rr);
    const rowInside = j >= 0 && j < height;
    for (let i = iFirst; i <= iLast; i++) {
      const cost = rowInside && i >= 0 && i < width ? tileCost[j * width + i] : 0;
      // Only tiles that would raise the answer need the exact test.
      if (cost !== 0 && cost <= max) continue;
      if (cost === 0) {
        if (segmentSquareDistSq(ax, ay, bx, by, i, j) < r2) return Infinity;
        continue;
      }
      // Costs count where the unit itself goes: within its true radius, or through the interior for a point
      // unit (a point passing a tile's corner or running along its edge does not cross that terrain).
      if (
        r > 0 ? segmentSquareDistSq(ax, ay, bx, by, i, j) >= r * r : !segmentEntersTile(ax, ay, dx, dy, i, j)
      ) {
        continue;
      }
      max = cost;
      if (max > limit) return max;
    }
  }
  return max;
}

/**
 * Walkable(A, B) of the simple smoothing: a disc of radius r moving straight from (ax, ay) to (bx, by)
 * overlaps no blocked tile (nor the map outside) and no tile costing more than maxCost.
 */
export function walkable(
  layer: PassLayer,
  r: number,
  ax: number,
  ay: number,
  bx: number,
  by: number,
  maxCost = Infinity,
): boolean {
  const cost = sweptMaxCost(layer, r, ax, ay, bx, by, maxCost);
  return cost !== Infinity && cost <= maxCost;
}
