/**
 * Test-side clearance codes: hand-built layers from clearance values (brute force, fills), and a layer's values
 * back from its codes (src/maps/grid.ts stores one byte a tile, the index into CLEARANCE_VALUES).
 *
 * @module
 */
import { CLEARANCE_VALUES, type PassLayer } from "../../src/maps/grid.ts";

/**
 * Codes for clearance values: each the code of the largest table value not above it (within 1e-5, far below
 * the table's gaps, so a brute-force hypot a rounding off still finds its value); values past the cap get the
 * cap's code. A value between table values (a test's own cap, say 4) reads back as the value below it: every
 * class (a table value) selects the same tiles from either.
 */
export function clearanceCodes(values: ArrayLike<number>): Uint8Array {
  const codes = new Uint8Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i] + 1e-5;
    let lo = 0, hi = CLEARANCE_VALUES.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (CLEARANCE_VALUES[mid] <= v) lo = mid;
      else hi = mid - 1;
    }
    codes[i] = lo;
  }
  return codes;
}

/** A layer's clearance values, decoded from its codes. */
export function clearanceValues(layer: PassLayer): Float32Array {
  return Float32Array.from(layer.clearanceCode, (code) => CLEARANCE_VALUES[code]);
}
