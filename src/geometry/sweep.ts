/**
 * Legality of segments for a unit's footprint against a map layer.
 *
 * The legality rule: the footprint may touch the boundary of a blocked tile square but must never overlap the
 * interior of one. Tile (x, y) is the closed square [x, x+1] x [y, y+1], blocked when `tileCost[y*width+x] === 0`;
 * everything outside the map counts as blocked. A zero-size footprint (radius 0, no rectangle) is treated as a
 * disc of radius {@link POINT_RADIUS}, so a path can neither slip through the shared corner of two diagonal
 * blocked tiles nor run exactly along a blocked tile's edge.
 *
 * Footprints: a disc of `radius` when `width` and `length` are both 0, else a rectangle centered on the pose,
 * `width` across the heading and `length` along it (a zero side takes 2*radius).
 *
 * The checks are conservative (they may refuse a legal segment by a small margin, never accept an illegal one):
 * - A line moves the footprint by pure translation along its heading, so the swept shape is exact: a capsule
 *   for a disc, a longer rectangle for a rectangle.
 * - An arc is sampled at spacing h <= 0.2 tiles. A disc: consecutive samples are joined by capsules (the disc
 *   swept along the chord) inflated by the arc's sagitta over one step, which contains the true swept region.
 *   A rectangle: each sample's rectangle is grown on every side by h*(1 + |k|*rho)/2, rho the half-diagonal,
 *   the largest distance any footprint point can be from its position at the nearest sample (a point at
 *   distance <= rho from the center moves at most (1 + |k|*rho) per unit of arc length).
 *
 * `sweptCells` enumerates exactly the cells the same shapes overlap. `segmentHitsBlocked` tests those shapes
 * too, except on stretches that the layer's clearance proves free, so: it says blocked only if one of the
 * segment's `sweptCells` is blocked or off the map, and on a layer without clearance (all zero) iff.
 *
 * @module
 */

import { freeRadius, type PassLayer } from "../maps/grid.ts";
import { arcSegment, lineSegment } from "./segment.ts";
import type { Segment } from "./types.ts";
import type { Footprint } from "../units/footprint.ts";

/** The disc radius used for a zero-size footprint. */
export const POINT_RADIUS = 1e-6;
/** Largest sample spacing along arcs, tiles. */
export const MAX_SAMPLE_SPACING = 0.2;
/** Target inflation for rectangles on arcs: the spacing shrinks (below MAX_SAMPLE_SPACING) to keep it this small. */
const RECT_INFLATION_TARGET = 0.05;

/** Stretch length for lines: the exact shape is tested per stretch that clearance does not certify. */
const LINE_STRETCH = 1;
/** Below this certified advance (tiles) a line's next stretch gets the exact test instead. */
const MIN_ADVANCE = 0.125;

/** Called per overlapped cell (repeats possible); return true to stop the scan. */
type CellVisitor = (cellX: number, cellY: number) => boolean;

/** A visitor that stops at the first cell it is given (with a `blocked` prefilter: the first blocked one). */
const STOP: CellVisitor = () => true;

// The visit functions take an optional `blocked` layer: then only its blocked (or off-map) cells are tested
// and visited. Most cells near a path are open, so the array lookup first spares the geometric test.

/** Visits the cells whose interior the closed disc overlaps (distance from center to the square < radius). */
function visitDiscCells(
  cx: number,
  cy: number,
  radius: number,
  visit: CellVisitor,
  blocked: PassLayer | null = null,
): boolean {
  const x0 = Math.floor(cx - radius);
  const x1 = Math.ceil(cx + radius) - 1;
  const y0 = Math.floor(cy - radius);
  const y1 = Math.ceil(cy + radius) - 1;
  const r2 = radius * radius;
  for (let y = y0; y <= y1; y++) {
    const ey = cy < y ? y - cy : cy > y + 1 ? cy - y - 1 : 0;
    for (let x = x0; x <= x1; x++) {
      if (blocked !== null && !isBlocked(blocked, x, y)) continue;
      const ex = cx < x ? x - cx : cx > x + 1 ? cx - x - 1 : 0;
      if (ex * ex + ey * ey < r2 && visit(x, y)) return true;
    }
  }
  return false;
}

/**
 * Visits the cells whose interior the rectangle's interior overlaps (separating axes, touching allowed).
 * The rectangle: center (cx, cy), unit axis (ux, uy) along its length, half-extents halfLen along it and
 * halfWid across it.
 */
function visitRectCells(
  cx: number,
  cy: number,
  ux: number,
  uy: number,
  halfLen: number,
  halfWid: number,
  visit: CellVisitor,
  blocked: PassLayer | null = null,
): boolean {
  const aux = Math.abs(ux);
  const auy = Math.abs(uy);
  const extX = halfLen * aux + halfWid * auy;
  const extY = halfLen * auy + halfWid * aux;
  const squareOnAxis = 0.5 * (aux + auy); // the unit square's half-extent on either rectangle axis
  const x0 = Math.floor(cx - extX);
  const x1 = Math.ceil(cx + extX) - 1;
  const y0 = Math.floor(cy - extY);
  const y1 = Math.ceil(cy + extY) - 1;
  for (let y = y0; y <= y1; y++) {
    const dy = cy - (y + 0.5);
    if (!(Math.abs(dy) < extY + 0.5)) continue;
    for (let x = x0; x <= x1; x++) {
      if (blocked !== null && !isBlocked(blocked, x, y)) continue;
      const dx = cx - (x + 0.5);
      if (!(Math.abs(dx) < extX + 0.5)) continue;
      if (!(Math.abs(dx * ux + dy * uy) < halfLen + squareOnAxis)) continue;
      if (!(Math.abs(-dx * uy + dy * ux) < halfWid + squareOnAxis)) continue;
      if (visit(x, y)) return true;
    }
  }
  return false;
}

/** The effective footprint: disc radius (when a disc) or rectangle half-extents. */
function footprintShape(fp: Footprint): { disc: boolean; radius: number; halfLen: number; halfWid: number } {
  if (!(fp.width > 0) && !(fp.length > 0)) {
    return { disc: true, radius: Math.max(fp.radius, POINT_RADIUS), halfLen: 0, halfWid: 0 };
  }
  const side = 2 * Math.max(fp.radius, POINT_RADIUS);
  const length = fp.length > 0 ? fp.length : side;
  const width = fp.width > 0 ? fp.width : side;
  return { disc: false, radius: 0, halfLen: 0.5 * length, halfWid: 0.5 * width };
}

/** A capsule = the rectangle between the two end centers plus the two end discs. */
function visitCapsuleCells(
  ax: number,
  ay: number,
  bx: number,
  by: number,
  radius: number,
  visit: CellVisitor,
  blocked: PassLayer | null = null,
): boolean {
  if (visitDiscCells(ax, ay, radius, visit, blocked)) return true;
  const dx = bx - ax;
  const dy = by - ay;
  const len = Math.sqrt(dx * dx + dy * dy);
  if (len > 0) {
    if (
      visitRectCells(0.5 * (ax + bx), 0.5 * (ay + by), dx / len, dy / len, 0.5 * len, radius, visit, blocked)
    ) {
      return true;
    }
  }
  return visitDiscCells(bx, by, radius, visit, blocked);
}

/**
 * Visits every cell the footprint may overlap along the segment (the conservative swept shape described in
 * the module doc). Returns true if the visitor stopped the scan.
 *
 * With a `certify` layer, only that layer's blocked cells are visited, and stretches its clearance proves free
 * are skipped: from a pose whose free radius f exceeds the footprint's circumscribed radius `reach`, every
 * footprint within arc length f - reach either way lies in that free disc (the center moves at most the arc
 * length, and every footprint point is within `reach` of the center whatever the heading). Lines are then
 * sphere-traced (each certified advance starts the next lookup), with a {@link LINE_STRETCH} stretch tested
 * exactly where clearance certifies too little; without `certify` a line is one stretch, its exact swept shape.
 */
function visitSegmentCells(
  seg: Segment,
  fp: Footprint,
  visit: CellVisitor,
  certify: PassLayer | null = null,
): boolean {
  // The effective footprint (see footprintShape), without allocating.
  const disc = !(fp.width > 0) && !(fp.length > 0);
  const side = 2 * Math.max(fp.radius, POINT_RADIUS);
  const radius = disc ? 0.5 * side : 0;
  const halfLen = disc ? 0 : 0.5 * (fp.length > 0 ? fp.length : side);
  const halfWid = disc ? 0 : 0.5 * (fp.width > 0 ? fp.width : side);
  const reach = disc ? radius : Math.hypot(halfLen, halfWid);
  const x0 = seg.start.x, y0 = seg.start.y, h0 = seg.start.heading;
  const k = seg.curvature;
  const d = seg.direction;
  const length = seg.length;
  // With `certify`: everything up to this arc length (from the last certifying pose back to it) is free.
  let covered = -1;
  if (k === 0 || length === 0) {
    // Pure translation along the heading (or no motion): the swept shape is exact.
    const ux = Math.cos(h0);
    const uy = Math.sin(h0);
    // With `certify`, sphere tracing: from distance t the clearance certifies the next `advance`; where it
    // certifies too little, one stretch of LINE_STRETCH gets the exact test and tracing resumes after it.
    let a = 0;
    while (a < length || (a === 0 && length === 0)) {
      if (certify !== null) {
        const advance = freeRadius(certify, x0 + d * a * ux, y0 + d * a * uy) - reach;
        if (advance >= MIN_ADVANCE) {
          a += advance;
          continue;
        }
      }
      const b = certify === null || a + LINE_STRETCH >= length ? length : a + LINE_STRETCH;
      const ax = x0 + d * a * ux, ay = y0 + d * a * uy, bx = x0 + d * b * ux, by = y0 + d * b * uy;
      const hit = disc ? visitCapsuleCells(ax, ay, bx, by, radius, visit, certify) : visitRectCells(
        0.5 * (ax + bx),
        0.5 * (ay + by),
        ux,
        uy,
        halfLen + 0.5 * (b - a),
        halfWid,
        visit,
        certify,
      );
      if (hit) return true;
      if (b >= length) break;
      a = b;
    }
    return false;
  }
  const absK = Math.abs(k);
  let spacing = MAX_SAMPLE_SPACING;
  if (!disc) spacing = Math.min(spacing, (2 * RECT_INFLATION_TARGET) / (1 + absK * reach));
  const steps = Math.max(1, Math.ceil(length / spacing));
  const h = length / steps;
  // Arc points at sample i, exact closed form about the circle's center.
  const cxc = x0 - Math.sin(h0) / k;
  const cyc = y0 + Math.cos(h0) / k;
  const sweepStep = d * k * h;
  if (disc) {
    // Every point of the arc between two samples lies within the sagitta of their chord.
    const halfStep = 0.5 * absK * h;
    const sagitta = (1 - Math.cos(halfStep)) / absK;
    // 1e-12 absorbs rounding in the sample positions.
    const inflated = radius + sagitta + 1e-12;
    for (let i = 0; i < steps; i++) {
      // Stretch [i h, (i + 1) h]: certified from its middle pose, else the inflated capsule of its chord.
      if (certify !== null) {
        if ((i + 1) * h <= covered) continue;
        const hm = h0 + sweepStep * (i + 0.5);
        const r = freeRadius(certify, cxc + Math.sin(hm) / k, cyc - Math.cos(hm) / k) - reach;
        if (r >= 0.5 * h) {
          covered = (i + 0.5) * h + r;
          continue;
        }
      }
      const ha = h0 + sweepStep * i;
      const hb = h0 + sweepStep * (i + 1);
      const px = i === 0 ? x0 : cxc + Math.sin(ha) / k;
      const py = i === 0 ? y0 : cyc - Math.cos(ha) / k;
      if (
        visitCapsuleCells(px, py, cxc + Math.sin(hb) / k, cyc - Math.cos(hb) / k, inflated, visit, certify)
      ) {
        return true;
      }
    }
    return false;
  }
  const grow = 0.5 * h * (1 + absK * reach) + 1e-12;
  for (let i = 0; i <= steps; i++) {
    // Sample i stands for the stretch [(i - 1/2) h, (i + 1/2) h]: certified from its pose, else its grown rectangle.
    if (certify !== null && (i + 0.5) * h <= covered) continue;
    const hi = h0 + sweepStep * i;
    const qx = cxc + Math.sin(hi) / k;
    const qy = cyc - Math.cos(hi) / k;
    if (certify !== null) {
      const r = freeRadius(certify, qx, qy) - reach;
      if (r >= 0.5 * h) {
        covered = i * h + r;
        continue;
      }
    }
    const ux = Math.cos(hi);
    const uy = Math.sin(hi);
    if (visitRectCells(qx, qy, ux, uy, halfLen + grow, halfWid + grow, visit, certify)) {
      return true;
    }
  }
  return false;
}

/** True if the tile is blocked or off the map. */
function isBlocked(layer: PassLayer, x: number, y: number): boolean {
  return x < 0 || y < 0 || x >= layer.width || y >= layer.height || layer.tileCost[y * layer.width + x] === 0;
}

/**
 * Exact test: true if the closed disc of `radius` centered at (cx, cy) overlaps the interior of a blocked tile
 * (or of a tile off the map). Touching a blocked square's boundary is allowed. A radius below
 * {@link POINT_RADIUS} is raised to it.
 */
export function discHitsBlocked(layer: PassLayer, cx: number, cy: number, radius: number): boolean {
  return visitDiscCells(cx, cy, Math.max(radius, POINT_RADIUS), STOP, layer);
}

/**
 * Exact test: true if the footprint placed at the pose (x, y, heading) overlaps a blocked tile's interior.
 */
export function footprintHitsBlocked(
  layer: PassLayer,
  x: number,
  y: number,
  heading: number,
  footprint: Footprint,
): boolean {
  const shape = footprintShape(footprint);
  if (shape.disc) return visitDiscCells(x, y, shape.radius, STOP, layer);
  return visitRectCells(
    x,
    y,
    Math.cos(heading),
    Math.sin(heading),
    shape.halfLen,
    shape.halfWid,
    STOP,
    layer,
  );
}

/**
 * Conservative test: true if the footprint may overlap a blocked tile's interior anywhere along the segment.
 * Never false when the footprint really overlaps one; may be true for a segment that passes within a small
 * margin (at most 0.05 tiles for rectangles on arcs, the arc's sagitta over 0.2 tiles for discs, 0 on lines).
 *
 * It tests the shapes {@link sweptCells} enumerates, except on stretches that the layer's clearance proves
 * free (see visitSegmentCells), so it is never less conservative than those shapes and is exact wherever
 * clearance decides. In open terrain a check is a few clearance lookups instead of hundreds of cell tests.
 */
export function segmentHitsBlocked(layer: PassLayer, seg: Segment, footprint: Footprint): boolean {
  return visitSegmentCells(seg, footprint, STOP, layer);
}

/** Joins closer than this (position, tiles; heading, radians) continue one curve. */
const PIECE_JOIN = 1e-9;

/** True when `b` continues the curve of `a` (same curvature and direction, exact join): pieces of one curve. */
function continuesCurve(a: Segment, b: Segment): boolean {
  if (a.curvature !== b.curvature || a.direction !== b.direction) return false;
  const dh = b.start.heading - a.end.heading;
  return Math.abs(b.start.x - a.end.x) <= PIECE_JOIN && Math.abs(b.start.y - a.end.y) <= PIECE_JOIN &&
    Math.abs(Math.atan2(Math.sin(dh), Math.cos(dh))) <= PIECE_JOIN;
}

/**
 * True if the path's footprint may overlap a blocked tile's interior ({@link segmentHitsBlocked}, sound: never
 * false when it does). Consecutive pieces of one curve (an arc split where the speed phase changes,
 * docs/segments.md) are one geometry, tested two ways: as the unsplit curve and piece by piece. The
 * conservative arc test samples each segment on its own grid, so either way alone can refuse, within its
 * margin, what the other accepts; both are sound tests of the same swept region, so the run is clear when
 * either says so.
 */
export function pathHitsBlocked(layer: PassLayer, segs: readonly Segment[], footprint: Footprint): boolean {
  for (let i = 0; i < segs.length;) {
    let j = i + 1;
    let length = segs[i].length;
    while (j < segs.length && continuesCurve(segs[j - 1], segs[j])) length += segs[j++].length;
    const s = segs[i];
    if (j > i + 1) {
      const curve = s.curvature === 0
        ? lineSegment(s.start, length, s.direction)
        : arcSegment(s.start, s.curvature, length, s.direction);
      if (segmentHitsBlocked(layer, curve, footprint)) {
        for (let k = i; k < j; k++) if (segmentHitsBlocked(layer, segs[k], footprint)) return true;
      }
    } else if (segmentHitsBlocked(layer, s, footprint)) return true;
    i = j;
  }
  return false;
}

/**
 * The cells the footprint may overlap along the segment (the same conservative shapes as
 * {@link segmentHitsBlocked}), each once, as pairs (cellX - originX, cellY - originY) in discovery order.
 * With an array `out` is cleared and filled; with an Int32Array the pairs are written from index 0 and a
 * RangeError is thrown if it is too small. Returns the number of cells.
 */
export function sweptCells(
  seg: Segment,
  footprint: Footprint,
  out: number[] | Int32Array,
  originX = 0,
  originY = 0,
): number {
  const seen = new Set<number>();
  let count = 0;
  if (Array.isArray(out)) out.length = 0;
  visitSegmentCells(seg, footprint, (x, y) => {
    // Cells are small integers here; pack them into one key (valid for |coordinates| < 2^20).
    const key = (x + 1048576) * 2097152 + (y + 1048576);
    if (seen.has(key)) return false;
    seen.add(key);
    const rx = x - originX;
    const ry = y - originY;
    if (Array.isArray(out)) {
      out.push(rx, ry);
    } else {
      if (2 * count + 1 >= out.length) throw new RangeError("sweptCells: output array too small");
      out[2 * count] = rx;
      out[2 * count + 1] = ry;
    }
    count++;
    return false;
  });
  return count;
}
