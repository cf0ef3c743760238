/**
 * Angle helpers shared by the curve solvers and segment code.
 *
 * @module
 */

/** 2*pi. */
export const TWO_PI = 2 * Math.PI;

/** Wraps an angle into [-pi, pi). Non-finite input gives NaN. */
export function normalizeAngle(angle: number): number {
  if (angle >= -Math.PI && angle < Math.PI) return angle;
  let wrapped = angle - TWO_PI * Math.floor((angle + Math.PI) / TWO_PI);
  // Rounding in the floor product can land exactly on pi or just below -pi.
  if (wrapped >= Math.PI) wrapped -= TWO_PI;
  if (wrapped < -Math.PI) wrapped += TWO_PI;
  return wrapped;
}

/** Wraps an angle into [0, 2*pi). */
export function mod2pi(angle: number): number {
  if (angle >= 0 && angle < TWO_PI) return angle;
  let wrapped = angle - TWO_PI * Math.floor(angle / TWO_PI);
  if (wrapped >= TWO_PI) wrapped -= TWO_PI;
  if (wrapped < 0) wrapped += TWO_PI;
  return wrapped;
}

/** Wraps an angle into (-pi, pi] (the signed-sweep convention of the Reeds-Shepp formulas). */
export function wrapPi(angle: number): number {
  if (angle > -Math.PI && angle <= Math.PI) return angle;
  let wrapped = angle - TWO_PI * Math.floor(angle / TWO_PI);
  if (wrapped > Math.PI) wrapped -= TWO_PI;
  if (wrapped <= -Math.PI) wrapped += TWO_PI;
  return wrapped;
}

/** The signed difference a - b wrapped into [-pi, pi): how far to turn from b to reach a. */
export function angleDifference(a: number, b: number): number {
  return normalizeAngle(a - b);
}

/** The absolute angular distance between two headings, in [0, pi]. */
export function angleDistance(a: number, b: number): number {
  return Math.abs(normalizeAngle(a - b));
}
