/**
 * The directional search's per-query state is lazy (issue 13, item 2): the window raster is filled by blocks on
 * first use and the grid bound by a resumable backward search, both stamped per query instead of cleared.
 * Kept honest here: a query run after others on the same reused state answers exactly as on fresh state, a
 * short query in a huge window touches a few blocks, and the lazy bound never exceeds the eager one.
 */
import { describe, expect, test } from "vitest";
import { directionalSearch, gridBound, windowAround } from "../../src/planning/directional.ts";
import { PlanBudget } from "../../src/planning/budget.ts";
import { astar, newSearchResult, SearchWorkspace } from "../../src/search/astar.ts";
import { LazyGridBound } from "../../src/search/directionalBound.ts";
import { DirectionalSpace } from "../../src/search/directionalSpace.ts";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";
import { directionalSetupOf } from "../helpers/directionalSetup.ts";
import { contextOf, doorRows, layerOf } from "../helpers/pathCheck.ts";
import { tiledRoomRows } from "../helpers/tiledMap.ts";

const tank = { ...BUILTIN_PROFILES.tank };

describe("lazy directional state", () => {
  test("a query after other (larger) queries on reused state answers as on fresh state", () => {
    const layer = layerOf(tiledRoomRows(3, 3));
    const shared = contextOf(layer);
    const queries = [
      [16, 16, 80, 80], // long: many blocks, a deep backward search
      [20, 20, 27, 22], // short, inside the first one's window
      [76, 40, 44, 76],
      [16, 16, 80, 80], // the long one again
      [70, 70, 66, 75],
    ];
    const run = (ctx: ReturnType<typeof contextOf>, q: number[]) => {
      const r = directionalSearch(ctx, layer, tank, {
        start: { x: q[0] + 0.5, y: q[1] + 0.5, heading: 0 },
        goal: { x: q[2] + 0.5, y: q[3] + 0.5, tolerance: 0.5, headingTolerance: 0.2 },
        neighborhood: 24,
        roadsOnly: false,
        reverse: true,
        maxExpansions: 500_000,
      }, new PlanBudget(500_000, 60_000, null));
      return {
        status: r.status,
        expansions: r.expansions,
        segments: r.segments.map((s) => [s.curvature, s.length, s.direction]),
      };
    };
    for (const q of queries) {
      const again = run(shared, q);
      const fresh = run(contextOf(layer), q);
      expect(again.status).toBe("found");
      expect(again).toEqual(fresh);
    }
  });

  test("a short query in a window over a 1024 x 1024 map fills a few blocks of its raster", () => {
    const side = 1024;
    const layer = layerOf(Array.from({ length: side }, () => ".".repeat(side)));
    const space = new DirectionalSpace();
    const ws = new SearchWorkspace();
    const lazy = new LazyGridBound();
    // The whole map as the window: about 1,100 blocks of 32 x 32 tiles.
    const window = { x0: 0, y0: 0, x1: side, y1: side };
    const sx = 500, sy = 500, gx = 506, gy = 500;
    space.configure(directionalSetupOf(tank, layer, window, [sx, sy, gx, gy], {
      lazyBound: lazy.configure(layer, window, gx, gy, sx, sy, false),
    }));
    space.useWorkspace(ws);
    const r = astar(space, ws, [space.snappedStart], {
      maxExpansions: 10_000,
      deadline: Infinity,
      cancel: null,
      trackNearest: false,
    }, newSearchResult());
    expect(r.status).toBe("found");
    expect(r.expansions).toBeLessThan(50);
    expect(space.filledBlocks).toBeGreaterThan(0);
    expect(space.filledBlocks).toBeLessThanOrEqual(16);
    expect(lazy.expansions).toBeLessThan(2_000);
  });

  test("the lazy grid bound never exceeds the eager one, and equals it where its search closed the tile", () => {
    const layer = layerOf(doorRows());
    const ctx = contextOf(layer);
    const lazy = new LazyGridBound();
    for (const [sx, sy, gx, gy] of [[4, 4, 34, 34], [5, 30, 33, 6], [8, 19, 20, 19]]) {
      const window = windowAround(layer, sx, sy, gx, gy, 32);
      const eager = gridBound(ctx, layer, window, gy * layer.width + gx, false).slice();
      lazy.configure(layer, window, gx, gy, sx, sy, false);
      let equal = 0, total = 0;
      for (let y = window.y0; y < window.y1; y++) {
        for (let x = window.x0; x < window.x1; x++) {
          const e = eager[y * layer.width + x];
          const l = lazy.at(x, y);
          expect(l).toBeLessThanOrEqual(e);
          total++;
          if (l === e) equal++;
        }
      }
      // The map is small: every lookup closes its tile within the resume limit, so all agree.
      expect(equal).toBe(total);
    }
  });
});
