/**
 * Walkable(a, b) for a disc-shaped unit: the exact test the article's smoothing (Listing 1) needs.
 *
 * The capsule swept by a disc of radius r moving from a to b must not overlap the interior of a blocked tile
 * square (tiles outside the map count as blocked), and no tile it overlaps may cost more than `maxCost`, so a
 * shortcut never crosses costlier terrain than the grid path it replaces. For r = 0 (the one-tile benchmark
 * agent) r = 1e-6 is used, so a line can neither slip through the shared corner of two diagonally blocked tiles
 * nor run along a blocked edge.
 *
 * Exact, not sampled: the distance between the segment and a square is 0 when they intersect, else the smallest
 * of the endpoint-to-square and corner-to-segment distances (disjoint convex shapes are closest at a vertex).
 * Only the tiles of each row band that the capsule can reach are visited; nothing is allocated.
 *
 * @module
 */
import type { PassLayer } from "../maps/grid.ts";

/** The radius used for a zero-size unit. */
export const POINT_RADIUS = 1e-6;

/** Squared distance from point (px, py) to segment (ax, ay)-(bx, by). */
function pointSegmentDistSq(px: number, py: number, ax: number, ay: number, bx: number, by: number): number {
  const dx = bx - ax, dy = by - ay;
  const len2 = dx * dx + dy * dy;
  let t = len2 > 0 ? ((px - ax) * dx + (py - ay) * dy) / len2 : 0;
  t = t < 0 ? 0 : t > 1 ? 1 : t;
  const ex = ax + t * dx - px, ey = ay + t * dy - py;
  return ex * ex + ey * ey;
}

/** Squared distance from a point to the closed square [x, x+1] x [y, y+1]. */
function pointSquareDistSq(px: number, py: number, x: number, y: number): number {
  const ex = px < x ? x - px : px > x + 1 ? px - x - 1 : 0;
  const ey = py < y ? y - py : py > y + 1 ? py - y - 1 : 0;
  return ex * ex + ey * ey;
}

/** True if the segment meets the closed square [x, x+1] x [y, y+1] (Liang-Barsky clipping). */
function segmentMeetsSquare(ax: number, ay: number, bx: number, by: number, x: number, y: number): boolean {
  let t0 = 0, t1 = 1;
  const dx = bx - ax, dy = by - ay;
  // Each pair: p * t <= q for the four half-planes.
  const ps = [-dx, dx, -dy, dy];
  const qs = [ax - x, x + 1 - ax, ay - y, y + 1 - ay];
  for (let i = 0; i < 4; i++) {
    const p = ps[i], q = qs[i];
    if (p === 0) {
      if (q < 0) return false;
    } else {
      const t = q / p;
      if (p < 0) {
        if (t > t1) return false;
        if (t > t0) t0 = t;
      } else {
        if (t < t0) return false;
        if (t < t1) t1 = t;
      }
    }
  }
  return true;
}

/** Squared distance between segment a-b and the closed unit square of tile (x, y). */
export function segmentSquareDistSq(
  ax: number,
  ay: number,
  bx: number,
  by: number,
  x: number,
  y: number,
): number {
  if (segmentMeetsSquare(ax, ay, bx, by, x, y)) return 0;
  let d = pointSquareDistSq(ax, ay, x, y);
  d = Math.min(d, pointSquareDistSq(bx, by, x, y));
  d = Math.min(d, pointSegmentDistSq(x, y, ax, ay, bx, by));
  d = Math.min(d, pointSegmentDistSq(x + 1, y, ax, ay, bx, by));
  d = Math.min(d, pointSegmentDistSq(x, y + 1, ax, ay, bx, by));
  d = Math.min(d, pointSegmentDistSq(x + 1, y + 1, ax, ay, bx, by));
  return d;
}

/**
 * True if a disc of radius r can move in a straight line from (ax, ay) to (bx, by) without overlapping a blocked
 * tile's interior, leaving the map, or overlapping a tile whose cost exceeds maxCost.
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
  const rr = r > POINT_RADIUS ? r : POINT_RADIUS;
  const rr2 = rr * rr;
  const { width, height, tileCost } = layer;
  const minY = Math.min(ay, by) - rr, maxY = Math.max(ay, by) + rr;
  const y0 = Math.floor(minY), y1 = Math.ceil(maxY) - 1;
  const dx = bx - ax, dy = by - ay;
  for (let ty = y0; ty <= y1; ty++) {
    // The part of the segment whose disc can reach this row band: y in [ty - rr, ty + 1 + rr].
    let xa: number, xb: number;
    if (Math.abs(dy) < 1e-12) {
      xa = Math.min(ax, bx);
      xb = Math.max(ax, bx);
    } else {
      let t0 = (ty - rr - ay) / dy, t1 = (ty + 1 + rr - ay) / dy;
      if (t0 > t1) {
        const s = t0;
        t0 = t1;
        t1 = s;
      }
      t0 = t0 < 0 ? 0 : t0;
      t1 = t1 > 1 ? 1 : t1;
      if (t0 > t1) continue;
      const xs = ax + t0 * dx, xe = ax + t1 * dx;
      xa = Math.min(xs, xe);
      xb = Math.max(xs, xe);
    }
    const x0 = Math.floor(xa - rr), x1 = Math.ceil(xb + rr) - 1;
    for (let tx = x0; tx <= x1; tx++) {
      const outside = tx < 0 || ty < 0 || tx >= width || ty >= height;
      const cost = outside ? 0 : tileCost[ty * width + tx];
      if (cost > 0 && cost <= maxCost) continue;
      if (segmentSquareDistSq(ax, ay, bx, by, tx, ty) < rr2) return false;
    }
  }
  return true;
}
