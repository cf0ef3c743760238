/**
 * A client's view of a stream's path: applying an update (whole path, or the rest replaced from a segment and a
 * distance along it) the way a client library would, from the wire contract alone (no server code).
 */

/** A wire segment with what a client reads (pose fields default to 0 on the wire). */
export interface ClientSegment {
  start: { x: number; y: number; heading: number };
  end: { x: number; y: number; heading: number };
  length: number;
  curvature: number;
  direction: number;
  start_speed?: number;
  end_speed?: number;
}

/** The pose at distance u along a wire segment (the contract's closed form). */
export function poseOn(s: ClientSegment, u: number): { x: number; y: number; heading: number } {
  const x0 = s.start.x ?? 0, y0 = s.start.y ?? 0, h0 = s.start.heading ?? 0;
  const k = s.curvature ?? 0, d = s.direction;
  if (k === 0) return { x: x0 + d * u * Math.cos(h0), y: y0 + d * u * Math.sin(h0), heading: h0 };
  const h = h0 + d * k * u;
  return { x: x0 + (Math.sin(h) - Math.sin(h0)) / k, y: y0 - (Math.cos(h) - Math.cos(h0)) / k, heading: h };
}

/** The first u of a segment as a segment of its own. */
export function cutSegment(s: ClientSegment, u: number): ClientSegment {
  return { ...s, end: poseOn(s, u), length: u };
}

/**
 * The path after an update: `plan.segments` whole when replace_from_segment is -1 (or absent), else the kept
 * segments before replace_from_segment, that segment cut at replace_from_distance (none of it at 0), then
 * `plan.segments`.
 */
export function applyUpdate(
  path: ClientSegment[],
  u: { replace_from_segment?: number; replace_from_distance?: number; plan: { segments: ClientSegment[] } },
): ClientSegment[] {
  const from = u.replace_from_segment ?? -1;
  if (from < 0) return u.plan.segments;
  const at = u.replace_from_distance ?? 0;
  // replace_from_segment = the path's segment count at distance 0 appends (a stream's rest after a PARTIAL prefix).
  if (from > path.length || (from === path.length && at > 0)) {
    throw new Error(`replace_from_segment ${from} beyond the path (${path.length})`);
  }
  // At distance 0 the segment itself is replaced: nothing of it is kept.
  const kept = at > 0 ? [...path.slice(0, from), cutSegment(path[from], at)] : path.slice(0, from);
  return [...kept, ...u.plan.segments];
}

/**
 * Largest gap between consecutive segments of a path: position, and unless `headings` is false (line paths of
 * units that turn in place, whose corners are heading jumps) heading modulo 2 pi.
 */
export function worstJoin(path: ClientSegment[], headings = true): number {
  let worst = 0;
  for (let i = 1; i < path.length; i++) {
    const a = poseOn(path[i - 1], path[i - 1].length), b = path[i].start;
    const dh = Math.abs(Math.atan2(Math.sin(b.heading - a.heading), Math.cos(b.heading - a.heading)));
    worst = Math.max(worst, Math.hypot(b.x - a.x, b.y - a.y), headings ? dh : 0);
  }
  return worst;
}

/** The part of a path from distance s on (the segment containing s cut there). */
export function pathFrom(path: ClientSegment[], s: number): ClientSegment[] {
  let start = 0;
  for (let i = 0; i < path.length; i++) {
    const seg = path[i];
    if (start + seg.length > s) {
      const u = Math.max(0, s - start);
      const first = { ...seg, start: poseOn(seg, u), length: seg.length - u };
      return [first, ...path.slice(i + 1)];
    }
    start += seg.length;
  }
  return [];
}
