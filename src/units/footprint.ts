/**
 * A unit's footprint and the helpers every layer needs about it.
 *
 * @module
 */

/** A unit's footprint: a circle (width = length = 0) or a rectangle centered on the pose. */
export interface Footprint {
  /** Circle radius in tiles (used when width and length are 0). */
  radius: number;
  /** Rectangle width across the heading, tiles. */
  width: number;
  /** Rectangle length along the heading, tiles. */
  length: number;
}

/** True if the footprint is a rectangle (width and length set), false for a circle. */
export function isRectangle(f: Footprint): boolean {
  return f.width > 0 || f.length > 0;
}

/** The radius of the circle centered on the pose that contains the footprint. */
export function boundingRadius(f: Footprint): number {
  if (isRectangle(f)) return Math.hypot(f.width / 2, f.length / 2);
  return f.radius;
}

/**
 * The radius of the largest disc centered on the pose inside the footprint, whatever the heading: the disc's
 * radius, or a rectangle's half of its shorter side. A zero-size footprint (and a zero rectangle side) is
 * taken like the legality check takes it (src/geometry/sweep.ts): a disc of radius 1e-6.
 */
export function inscribedRadius(f: Footprint): number {
  const r = Math.max(f.radius, 1e-6);
  if (!isRectangle(f)) return r;
  const halfLength = f.length > 0 ? f.length / 2 : r;
  const halfWidth = f.width > 0 ? f.width / 2 : r;
  return Math.min(halfLength, halfWidth);
}
