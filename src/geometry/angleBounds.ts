/**
 * Cheap angle estimates with a guaranteed error bound, for pruning in the curve solvers: a word whose length
 * bound (built from these estimates) already exceeds the best found is skipped before its exact atan2/acos.
 * Nothing here feeds an exact result.
 *
 * @module
 */

/** Upper bound on |approxAtan2(y, x) - Math.atan2(y, x)| (modulo 2*pi), with a wide safety factor. */
export const APPROX_ANGLE_ERROR = 1e-6;

const HALF_PI = 0.5 * Math.PI;
const TWO_PI = 2 * Math.PI;

/**
 * atan2 to within about 1.4e-8 rad (measured on a dense circle; {@link APPROX_ANGLE_ERROR} is the bound to use):
 * an odd minimax polynomial for atan on [0, 1] (Abramowitz & Stegun 4.4.49) with octant folding. About a tenth
 * of the cost of Math.atan2 here. Gives 0 for (0, 0).
 */
export function approxAtan2(y: number, x: number): number {
  const ax = Math.abs(x);
  const ay = Math.abs(y);
  const swap = ay > ax;
  const z = swap ? ax / ay : ax === 0 ? 0 : ay / ax;
  const z2 = z * z;
  let a = z *
    (1 +
      z2 * (-0.3333314528 +
          z2 * (0.1999355085 +
              z2 * (-0.1420889944 +
                  z2 * (0.1065626393 +
                      z2 *
                        (-0.07528964 + z2 * (0.0429096138 + z2 * (-0.0161657367 + z2 * 0.0028662257))))))));
  if (swap) a = HALF_PI - a;
  if (x < 0) a = Math.PI - a;
  return y < 0 ? -a : a;
}

/**
 * A lower bound on an arc the solver computes as `mod2pi(angle)` (snapped to 0 within `snap` of a full turn),
 * given an estimate of `angle` within `error`: the estimate wrapped to [0, 2*pi) minus the error, or 0 where
 * the estimate is too close to 0 or to a full turn to tell on which side of the wrap the exact value lands.
 */
export function arcLowerBound(estimate: number, error: number, snap: number): number {
  let m = estimate;
  if (m < 0) m += TWO_PI;
  if (m < 0 || m >= TWO_PI) m -= TWO_PI * Math.floor(m / TWO_PI);
  return m > error && m < TWO_PI - snap - error ? m - error : 0;
}

/**
 * {@link approxAtan2} over `count` pairs stored as (y, x) in `pairs[2i]`, `pairs[2i + 1]`; each result replaces
 * its y. One call for a batch keeps the numbers unboxed where V8 would not inline several approxAtan2 calls.
 */
export function approxAtan2Batch(pairs: Float64Array, count: number): void {
  for (let i = 0; i < 2 * count; i += 2) pairs[i] = approxAtan2(pairs[i], pairs[i + 1]);
}
