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

/**
 * atan2 to within about 1.4e-8 rad (measured on a dense circle; {@link APPROX_ANGLE_ERROR} is the bound to use):
 * an odd minimax polynomial for atan on [0, 1] (Abramowitz & Stegun 4.4.49) with octant folding. Gives 0 for
 * (0, 0). The octant folding is arithmetic on 0/1 comparison results rather than branches: on the solvers'
 * random quadrants the branches mispredicted about half the time and cost more than the polynomial.
 */
export function approxAtan2(y: number, x: number): number {
  const ax = Math.abs(x);
  const ay = Math.abs(y);
  const high = Math.max(ax, ay);
  const z = high > 0 ? Math.min(ax, ay) / high : 0;
  const z2 = z * z;
  const a = z *
    (1 +
      z2 * (-0.3333314528 +
          z2 * (0.1999355085 +
              z2 * (-0.1420889944 +
                  z2 * (0.1065626393 +
                      z2 *
                        (-0.07528964 + z2 * (0.0429096138 + z2 * (-0.0161657367 + z2 * 0.0028662257))))))));
  // swap, left and below are 1 or 0: a -> pi/2 - a past the diagonal, pi - a left of the y axis, -a below.
  const swap = Number(ay > ax);
  const folded = a + swap * (HALF_PI - 2 * a);
  const left = Number(x < 0);
  const turned = folded + left * (Math.PI - 2 * folded);
  const below = Number(y < 0);
  return turned - 2 * below * turned;
}

/**
 * {@link approxAtan2} over `count` pairs stored as (y, x) in `pairs[2i]`, `pairs[2i + 1]`; each result replaces
 * its y. One call for a batch keeps the numbers unboxed where V8 would not inline several approxAtan2 calls.
 */
export function approxAtan2Batch(pairs: Float64Array, count: number): void {
  for (let i = 0; i < 2 * count; i += 2) pairs[i] = approxAtan2(pairs[i], pairs[i + 1]);
}
