/**
 * The open-field circle crossing (issue 12's "units crossing an open field in all directions"): N soldiers evenly
 * on a circle, each to the point just past the opposite one, so every straight path meets in the centre. Run over
 * gRPC by bench/fleet.ts like the other fleet scenarios (the paths come from the server's planners and its detour
 * pass, the figure is the server's), once with detours and once with `--fleet-detours 0` (timing alone, the peer).
 *
 * @module
 */

/** One unit of a scenario: start and goal tile coordinates. */
export interface Spec {
  id: string;
  x: number;
  y: number;
  gx: number;
  gy: number;
}

/** The open field (bordered by walls) and the specs of the circle crossing with `n` soldiers. */
export function circleScenario(n: number): { rows: string[]; specs: Spec[] } {
  // 2 tiles between neighbours on the circle (at least 1.3 once on tile centres: room to pass between two), radius
  // at least 8.
  const r = Math.max(8, (n * 2) / (2 * Math.PI));
  const side = Math.ceil(2 * r + 10), c = side / 2;
  const rows = Array.from(
    { length: side },
    (_, y) => (y === 0 || y === side - 1 ? "@".repeat(side) : "@" + ".".repeat(side - 2) + "@"),
  );
  const specs: Spec[] = [];
  for (let i = 0; i < n; i++) {
    const a = (2 * Math.PI * i) / n;
    // Just past the opposite point (between two starts, which stand until their units set out) and 1.5 tiles
    // beyond the circle, so that no unit arrived at its goal stands in another's way. Starts and goals on tile
    // centres: the line planners start and end paths there (a unit elsewhere would jump to its tile's centre).
    const b = a + Math.PI + Math.PI / n, g = r + 1.5;
    specs.push({
      id: `c${i}`,
      x: Math.floor(c + r * Math.cos(a)) + 0.5,
      y: Math.floor(c + r * Math.sin(a)) + 0.5,
      gx: Math.floor(c + g * Math.cos(b)) + 0.5,
      gy: Math.floor(c + g * Math.sin(b)) + 0.5,
    });
  }
  return { rows, specs };
}

/** The note under the circle rows. */
export const CIRCLE_NOTE =
  "Circle: soldiers (disc r 0.3, 2 tiles/s) evenly on a circle (on tile centres, 2 tiles apart, radius at " +
  "least 8) in a walled open field, each through the centre to the tile 1.5 tiles beyond the point just past the " +
  "opposite one, all added at t = 0 over one Fleet stream.";
