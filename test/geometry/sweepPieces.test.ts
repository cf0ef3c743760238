/**
 * The conservative sweep on arcs split into pieces (src/geometry/sweep.ts pathHitsBlocked): a speed-phase
 * piece of a legal arc, tested alone, can be refused within the sampling margin where the unsplit arc passes
 * (the case below is a jeep's reversing arc of a Directional-24 answer on random512-10-0, cropped), and the
 * other way round, two pieces that pass can form an arc the test refuses (a jeep's Directional-24 answer on the
 * yard). A path's run of pieces of one curve is clear when either test passes (both are sound); pieces that
 * do not continue each other are tested apart.
 */
import { describe, expect, test } from "vitest";
import { arcSegment, lineSegment } from "../../src/geometry/segment.ts";
import { pathHitsBlocked, segmentHitsBlocked } from "../../src/geometry/sweep.ts";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";
import { checkPath, layerOf, layerOfMap } from "../helpers/pathCheck.ts";

// random512-10-0.map, x 26..39, y 0..13 (trees as walls): the arc starts at (32.5, 5.5) there.
const rows = [
  "..........@...",
  ".....@........",
  "....@.........",
  ".@..@.@.@.....",
  ".....@..@...@.",
  "..............",
  "..............",
  "..............",
  "@........@....",
  "...@@.........",
  "..............",
  "@.......@.....",
  ".@..........@@",
  "..............",
];
const layer = layerOf(rows);
const jeep = BUILTIN_PROFILES.jeep;
const start = { x: 6.5, y: 5.5, heading: -Math.PI };
// A quarter turn backing up at the jeep's radius 2, and its first speed phase (0.25 tiles) split off.
const whole = arcSegment(start, -0.5, Math.PI, -1);
const piece = arcSegment(start, -0.5, 0.25, -1);
const rest = arcSegment(piece.end, -0.5, Math.PI - 0.25, -1);

describe("conservative sweep of split arcs", () => {
  test("the case: the unsplit arc passes, its first piece alone is refused, the dense checker accepts", () => {
    expect(segmentHitsBlocked(layer, whole, jeep.footprint)).toBe(false);
    expect(segmentHitsBlocked(layer, piece, jeep.footprint)).toBe(true);
    const out = { segments: [piece, rest] } as never;
    expect(checkPath(layer, jeep, out, start, { x: whole.end.x, y: whole.end.y, tolerance: 1e-6 })).toEqual(
      [],
    );
  });

  test("a path of the pieces is tested as the arc they form", () => {
    expect(pathHitsBlocked(layer, [piece, rest], jeep.footprint)).toBe(false);
    expect(pathHitsBlocked(layer, [whole], jeep.footprint)).toBe(false);
  });

  test("the other way: two pieces of a legal arc pass, the arc they form is refused; the path is clear", () => {
    const yard = layerOfMap(Deno.readTextFileSync(new URL("../../demo/maps/yard.map", import.meta.url)));
    const a = arcSegment(
      { x: 16.867006838144544, y: 9.345299461620748, heading: 2.1862760354652844 },
      -0.5,
      1.2309594173407752,
    );
    const b = arcSegment(a.end, -0.5, 0.33589153375493713);
    const joined = arcSegment(a.start, -0.5, a.length + b.length);
    expect(segmentHitsBlocked(yard, a, jeep.footprint)).toBe(false);
    expect(segmentHitsBlocked(yard, b, jeep.footprint)).toBe(false);
    expect(segmentHitsBlocked(yard, joined, jeep.footprint)).toBe(true);
    expect(pathHitsBlocked(yard, [a, b], jeep.footprint)).toBe(false);
    expect(checkPath(yard, jeep, { segments: [a, b] } as never, a.start, { ...b.end, tolerance: 1e-6 }))
      .toEqual([]);
  });

  test("pieces that do not continue one curve are tested apart (and still refused)", () => {
    // The same piece followed by a line from its end: a different curve, so the piece is tested alone.
    expect(pathHitsBlocked(layer, [piece, lineSegment(piece.end, 1, -1)], jeep.footprint)).toBe(true);
    // A piece whose start is off the previous end by more than rounding is not joined either.
    const shifted = arcSegment({ ...piece.end, x: piece.end.x + 1e-3 }, -0.5, Math.PI - 0.25, -1);
    expect(pathHitsBlocked(layer, [piece, shifted], jeep.footprint)).toBe(true);
  });

  test("a blocked arc stays blocked when split", () => {
    const wall = layerOf(rows.map((r, y) => (y === 7 ? "@".repeat(r.length) : r)));
    expect(segmentHitsBlocked(wall, whole, jeep.footprint)).toBe(true);
    expect(pathHitsBlocked(wall, [piece, rest], jeep.footprint)).toBe(true);
  });
});
