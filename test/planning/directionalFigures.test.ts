/**
 * The article's Figure 12 ("A legal curved path which cannot be found by the Directional-8 algorithm"): on a
 * hand-made map a wide-turning, forward-only unit cannot chain tile-center poses one tile apart through a
 * diagonal bend (a -> b -> c -> d), so Directional-8 exhausts its search window without a path, while
 * Directional-24 bends through it with a curve spanning two tiles.
 *
 * The unit is a "launch": the boat's disc (radius 0.8), forward only, turning radius 2. With the boat's own
 * radius 3 the Directional-24 table has no compact turn at all (its shortest turning transition between tile
 * centers one or two tiles apart is a loop about 16 tiles long), so there the two neighbourhoods do not differ.
 */
import { describe, expect, test } from "vitest";
import { readFileSync } from "node:fs";
import { planDirectional } from "../../src/planning/directional.ts";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";
import type { UnitSpec } from "../../src/units/unit.ts";
import { checkPath, contextOf, layerOfMap, taskOf } from "../helpers/pathCheck.ts";

const launch: UnitSpec = {
  ...BUILTIN_PROFILES.boat,
  footprint: { radius: 0.8, width: 0, length: 0 },
  boundingRadius: 0.8,
  turningRadius: 2,
  canReverse: false,
};

describe("Figure 12: a legal curved path Directional-8 cannot find", () => {
  const layer = layerOfMap(readFileSync(new URL("../fixtures/figure12.map", import.meta.url), "utf8"));
  const start = { x: 3.5, y: 3.5, heading: 0 };
  const goal = { x: 10.5, y: 7.5 };
  const budget = 2_000_000;

  test("Directional-8 exhausts its window without a path (not a budget stop)", () => {
    const out = planDirectional(
      contextOf(layer),
      taskOf(layer, launch, start, goal, { neighborhood: 8, maxExpansions: budget }),
    );
    // The lattice finds none; PLANNER_DIRECTIONAL's last resort, the off-lattice search with continuous poses
    // (src/planning/offLattice.ts), then finds a legal path and the message says both.
    expect(out.message).toMatch(/no legal directional path in the search window/);
    expect(out.message).toMatch(
      /^off-lattice search \(continuous poses\): the directional lattice found none/,
    );
    expect(out.status).toBe("found");
    expect(checkPath(layer, launch, out, start, goal)).toEqual([]);
    // Exhaustion, not a budget stop: far fewer expansions than allowed.
    expect(out.expansions).toBeGreaterThan(0);
    expect(out.expansions).toBeLessThan(budget);
  });

  test("Directional-24 finds a legal path through the bend, with a two-tile hop that turns", () => {
    const out = planDirectional(
      contextOf(layer),
      taskOf(layer, launch, start, goal, { neighborhood: 24, maxExpansions: budget }),
    );
    expect(out.status).toBe("found");
    expect(checkPath(layer, launch, out, start, goal)).toEqual([]);
    expect(out.segments.every((s) => s.direction === 1)).toBe(true);
    // The path turns (the goal lies down and to the right of a start facing +x) ...
    const end = out.segments[out.segments.length - 1].end;
    expect(Math.sin(end.heading)).toBeGreaterThan(0.3);
    // ... and its node tiles include a hop two tiles away: the curve Directional-8 has no transition for.
    const tiles = Array.from(out.waypoints ?? []);
    expect(tiles.length).toBeGreaterThanOrEqual(3);
    let twoTileHop = false;
    for (let i = 1; i < tiles.length - 1; i++) {
      const ax = tiles[i - 1] % layer.width, ay = Math.floor(tiles[i - 1] / layer.width);
      const bx = tiles[i] % layer.width, by = Math.floor(tiles[i] / layer.width);
      if (Math.max(Math.abs(ax - bx), Math.abs(ay - by)) === 2 && ay !== by) twoTileHop = true;
    }
    expect(twoTileHop).toBe(true);
  });
});
