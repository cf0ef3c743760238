/**
 * The article's heuristic table: the length of the shortest curve (Dubins, or Reeds-Shepp for reversing units)
 * from a tile-center pose to another tile center within `radius` tiles, for each start heading and each end
 * heading (plus "any end heading"), ignoring obstacles.
 *
 * Why it is a lower bound (admissible): a directional search only moves between tile-center poses with discrete
 * headings, and any chain of curves between two poses is itself a feasible Dubins/Reeds-Shepp path between
 * them, so it is at least as long as the shortest one, which is what the table holds; values are floored to
 * 1/256 tile, so the stored value never exceeds the true length. Beyond the table radius the bound falls back
 * to the Euclidean distance (always a lower bound). Reaching a goal that is not a tile-center pose is bounded
 * in the search's heuristic (src/search/directionalHeuristic.ts) with the triangle inequality of the curve
 * distance.
 *
 * Layout: the problem is invariant under 90-degree rotations, so only start headings 0 .. H/4-1 are stored; a
 * lookup rotates the offset and the end heading. values[((h0 * S) + cell) * (H + 1) + h1], S = (2R+1)^2,
 * cell = (dy + R) * (2R + 1) + (dx + R), h1 = H for "any end heading".
 *
 * @module
 */
import { dubinsLengthCoords } from "../geometry/dubins.ts";
import { reedsSheppLengthCoords } from "../geometry/reedsShepp.ts";
import { headingAngle } from "./directionTable.ts";

/** Units per tile of stored values. */
export const HEURISTIC_UNITS = 256;

/** A heuristic table (see the module doc). */
export interface HeuristicTable {
  /** Offsets with |dx|, |dy| <= radius are stored. */
  radius: number;
  /** Discrete headings H (a multiple of 4). */
  headings: number;
  /** Reeds-Shepp (true) or Dubins lengths. */
  reverse: boolean;
  /** The turning radius. */
  turningRadius: number;
  /** Floored lengths in 1/{@link HEURISTIC_UNITS} tile. */
  values: Uint16Array;
}

/** Builds the table (deterministic). */
export function buildHeuristicTable(
  turningRadius: number,
  headings: number,
  reverse: boolean,
  radius = 16,
): HeuristicTable {
  if (headings % 4 !== 0) throw new RangeError("headings must be a multiple of 4");
  const side = 2 * radius + 1;
  const S = side * side;
  const H = headings;
  const values = new Uint16Array((H / 4) * S * (H + 1));
  const length = reverse ? reedsSheppLengthCoords : dubinsLengthCoords;
  for (let h0 = 0; h0 < H / 4; h0++) {
    const a0 = headingAngle(h0, H);
    for (let dy = -radius; dy <= radius; dy++) {
      for (let dx = -radius; dx <= radius; dx++) {
        const cell = (dy + radius) * side + (dx + radius);
        const base = (h0 * S + cell) * (H + 1);
        let free = Infinity;
        for (let h1 = 0; h1 < H; h1++) {
          const len = length(0, 0, a0, dx, dy, headingAngle(h1, H), turningRadius);
          // Floor with a relative margin so solver rounding can never push a stored value above the truth.
          const v = Math.max(0, Math.floor(len * HEURISTIC_UNITS * (1 - 1e-9)));
          const stored = Math.min(v, 65535);
          values[base + h1] = stored;
          if (stored < free) free = stored;
        }
        values[base + H] = free;
      }
    }
  }
  return { radius, headings, reverse, turningRadius, values };
}

/**
 * Lower bound (tiles) on the curve length from the tile-center pose with heading h0 to the tile center at
 * offset (dx, dy) with heading h1 (h1 < 0: any heading).
 */
export function curveLowerBound(t: HeuristicTable, dx: number, dy: number, h0: number, h1: number): number {
  const R = t.radius;
  if (dx > R || dx < -R || dy > R || dy < -R) return Math.sqrt(dx * dx + dy * dy);
  const H = t.headings;
  const quarter = H >> 2;
  const q = (h0 / quarter) | 0;
  const rem = h0 - q * quarter;
  // Rotate the problem by -q * 90 degrees: (x, y) -> (y, -x) per quarter turn.
  let x = dx, y = dy;
  for (let i = 0; i < q; i++) {
    const nx = y;
    y = -x;
    x = nx;
  }
  const side = 2 * R + 1;
  const cell = (y + R) * side + (x + R);
  const e = h1 < 0 ? H : (h1 - q * quarter + H) % H;
  return t.values[((rem * side * side + cell) * (H + 1)) + e] / HEURISTIC_UNITS;
}
