/**
 * What a picture of a path shows, independent of how it is drawn: where the unit's footprint is drawn along it,
 * where its cusps are, the outline of the footprint at a pose, each segment's style, and a path flattened into
 * points. The render tool (SVG/PNG) and the live viewer (canvas, fed by the server's HTTP API) both draw from
 * these, so the two pictures agree.
 *
 * @module
 */
import { poseAtDistance } from "../geometry/segment.ts";
import type { Pose, Segment } from "../geometry/types.ts";
import type { Footprint } from "../units/footprint.ts";

/**
 * The poses where the footprint is drawn: n + 1 evenly spaced along the path (ends included), n =
 * ceil(length / spacing) (at least 1). An empty path has none.
 */
export function footprintSamples(segs: readonly Segment[], spacing: number): Pose[] {
  if (segs.length === 0) return [];
  let total = 0;
  for (const s of segs) total += s.length;
  const n = Math.max(1, Math.ceil(total / spacing));
  const out: Pose[] = [];
  for (let i = 0; i <= n; i++) out.push(poseAtDistance(segs, (total * i) / n));
  return out;
}

/** Indices of segments that start a cusp (their direction differs from the previous segment's). */
export function cuspIndices(segs: readonly Segment[]): number[] {
  const out: number[] = [];
  for (let i = 1; i < segs.length; i++) if (segs[i].direction !== segs[i - 1].direction) out.push(i);
  return out;
}

/** The footprint's outline at a pose as polygon corners, or null for a disc (draw a circle of its radius). */
export function footprintCorners(p: Pose, fp: Footprint): [number, number][] | null {
  if (!(fp.width > 0) && !(fp.length > 0)) return null;
  const hl = (fp.length > 0 ? fp.length : 2 * fp.radius) / 2;
  const hw = (fp.width > 0 ? fp.width : 2 * fp.radius) / 2;
  const c = Math.cos(p.heading), s = Math.sin(p.heading);
  return [[hl, hw], [-hl, hw], [-hl, -hw], [hl, -hw]].map((
    [a, b],
  ) => [p.x + a * c - b * s, p.y + a * s + b * c]);
}

/** How a segment is drawn: its kind and its color (#rrggbb). */
export interface SegmentStyle {
  /** "blocked" (an approximation touching a blocked tile), "tightened", "reverse" or "forward". */
  kind: "blocked" | "tightened" | "reverse" | "forward";
  /** The stroke color. */
  color: string;
  /** Drawn dashed (approximations that touch blocked tiles). */
  dashed: boolean;
}

/** A segment's style: approximations stand out, reverse driving in its own color. */
export function segmentStyle(seg: Segment): SegmentStyle {
  if (seg.touchesBlocked) return { kind: "blocked", color: "#d0302a", dashed: true };
  if (seg.tightened) return { kind: "tightened", color: "#8e44ad", dashed: false };
  if (seg.direction < 0) return { kind: "reverse", color: "#e67e22", dashed: false };
  return { kind: "forward", color: "#1f4e9c", dashed: false };
}

/** A path ready to draw with straight strokes and simple shapes (tile coordinates). */
export interface PathDrawing {
  /** One polyline per segment ([x0, y0, x1, y1, ...]: lines 2 points, arcs one point per step) with its style. */
  segments: { points: number[]; style: SegmentStyle }[];
  /** The footprint at each sample: a polygon ([x0, y0, ...]) or a circle. */
  footprints: ({ polygon: number[] } | { circle: { x: number; y: number; r: number } })[];
  /** Where the direction changes. */
  cusps: { x: number; y: number }[];
  /** Total length (tiles) and segment count, for captions. */
  length: number;
  /** Number of segments. */
  segmentCount: number;
}

const r4 = (v: number) => Math.round(v * 1e4) / 1e4;

/**
 * Flattens a path for drawing: arcs sampled every `step` tiles (at least 4 points per arc), the footprint every
 * `spacing` tiles (at most `maxFootprints`, spacing widened past that so long paths stay cheap to draw; 0: none).
 */
export function pathDrawing(
  segs: readonly Segment[],
  footprint: Footprint,
  opts: { spacing?: number; step?: number; maxFootprints?: number } = {},
): PathDrawing {
  const step = opts.step ?? 0.25;
  let length = 0;
  for (const s of segs) length += s.length;
  const maxFp = opts.maxFootprints ?? 400;
  const spacing = Math.max(opts.spacing ?? 0.5, length / maxFp);
  const segments = segs.map((seg) => {
    const n = seg.curvature === 0 ? 1 : Math.max(4, Math.ceil(seg.length / step));
    const points: number[] = [];
    for (let i = 0; i <= n; i++) {
      const p = i === 0 ? seg.start : i === n ? seg.end : poseAtDistance([seg], (seg.length * i) / n);
      points.push(r4(p.x), r4(p.y));
    }
    return { points, style: segmentStyle(seg) };
  });
  const footprints = (maxFp > 0 ? footprintSamples(segs, spacing) : []).map((p) => {
    const corners = footprintCorners(p, footprint);
    return corners
      ? { polygon: corners.flatMap(([x, y]) => [r4(x), r4(y)]) }
      : { circle: { x: r4(p.x), y: r4(p.y), r: r4(Math.max(footprint.radius, 0.05)) } };
  });
  const cusps = cuspIndices(segs).map((i) => ({ x: r4(segs[i].start.x), y: r4(segs[i].start.y) }));
  return { segments, footprints, cusps, length: r4(length), segmentCount: segs.length };
}
