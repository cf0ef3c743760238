/**
 * The paged A* workspace (big state spaces) answers exactly as the flat one: same status, expansions, costs,
 * best states and paths, on the shared Moving AI maps (grid 8- and 4-connected, jump points, clearance classes,
 * budgets with nearest tracking, several starts), on random terrain maps, and for the directional space (which
 * reads the workspace's g values in its successor test). One paged workspace serves every search in turn, so
 * page reuse across searches, pool growth and shrinking, and stale stamps are exercised too.
 */
import { describe, expect, test } from "vitest";
import type { PassLayer } from "../../src/maps/grid.ts";
import {
  astar,
  newSearchResult,
  reconstructPath,
  type SearchLimits,
  type SearchResult,
  type SearchSpace,
  SearchWorkspace,
  unlimited,
} from "../../src/search/astar.ts";
import { GridSpace } from "../../src/search/gridSpace.ts";
import { directionalSetupOf } from "../helpers/directionalSetup.ts";
import { PAGE_SIZE } from "../../src/search/statePages.ts";
import { JumpPointSpace } from "../../src/search/jumpPointSpace.ts";
import { DirectionalSpace } from "../../src/search/directionalSpace.ts";
import { LazyGridBound } from "../../src/search/directionalBound.ts";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";
import { mapNames, mapText, queries } from "../helpers/movingai.ts";
import { bruteClearance } from "../helpers/clearance.ts";
import { clearanceCodes } from "../helpers/clearanceCodes.ts";
import { rng } from "../helpers/rng.ts";
import { layerOf } from "../helpers/pathCheck.ts";
import { tiledRoomRows } from "../helpers/tiledMap.ts";

function layerFromMapText(text: string): PassLayer {
  const lines = text.split(/\r?\n/);
  const height = +lines.find((l) => l.startsWith("height"))!.split(/\s+/)[1];
  const width = +lines.find((l) => l.startsWith("width"))!.split(/\s+/)[1];
  const first = lines.indexOf("map") + 1;
  const cost = new Float32Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) cost[y * width + x] = ".GS".includes(lines[first + y][x]) ? 1 : 0;
  }
  return {
    width,
    height,
    tileCost: cost,
    clearanceCode: clearanceCodes(bruteClearance(width, height, cost, 2)),
    minCost: 1,
    road: new Uint8Array(width * height),
  };
}

/** Everything a search answers, with the path read back from the workspace. */
function answer(space: SearchSpace, ws: SearchWorkspace, starts: number[], limits: SearchLimits) {
  const r: SearchResult = astar(space, ws, starts, limits, newSearchResult());
  const path = r.goal >= 0 ? Array.from(reconstructPath(ws, r.goal)) : [];
  const nearest = r.best >= 0 ? Array.from(reconstructPath(ws, r.best)) : [];
  return { ...r, path, nearest, reachedBest: r.best >= 0 ? ws.gOf(r.best) : -1 };
}

// Threshold 0: every search pages. Shared by all tests below, in turn.
const paged = new SearchWorkspace(0);
const flat = new SearchWorkspace(Infinity);

describe("paged workspace = flat workspace", () => {
  for (const name of mapNames()) {
    test(`${name}: grid 8/4, jump points, clearance, budgets, several starts`, () => {
      const layer = layerFromMapText(mapText(name));
      const w = layer.width;
      const qs = queries(name).filter((_, i) => i % 12 === 0);
      const grid = new GridSpace();
      const jump = new JumpPointSpace();
      let compared = 0;
      for (const [k, q] of qs.entries()) {
        const s = q.sy * w + q.sx, goal = q.gy * w + q.gx;
        const clearance = k % 3 === 0 ? 1.5 : 0;
        // Spaces are configured right before each pair of runs (grid is reused).
        const runs: [() => SearchSpace, number[], SearchLimits][] = [
          [() => grid.configure(layer, clearance, 8, goal), [s], unlimited()],
          [() => grid.configure(layer, 0, 4, goal), [s], unlimited()],
          [() => jump.configure(layer, 0, goal), [s], unlimited()],
          [
            () => grid.configure(layer, 0, 8, goal),
            [s, goal - 1 >= 0 ? goal - 1 : s],
            { ...unlimited(), maxExpansions: 40 + k, trackNearest: true },
          ],
        ];
        for (const [make, starts, limits] of runs) {
          const space = make();
          const a = answer(space, flat, starts, limits);
          const b = answer(space, paged, starts, limits);
          expect(paged.paged).toBe(true);
          expect(b).toEqual(a);
          compared++;
        }
      }
      expect(compared).toBeGreaterThan(40);
      expect(flat.paged).toBe(false);
    }, 120_000);
  }

  test("random terrain maps (non-uniform costs), 4- and 8-connected", () => {
    const rand = rng(1813);
    const grid = new GridSpace();
    for (let trial = 0; trial < 40; trial++) {
      const w = 20 + Math.floor(rand() * 60), h = 20 + Math.floor(rand() * 60);
      const cost = new Float32Array(w * h);
      for (let i = 0; i < cost.length; i++) cost[i] = rand() < 0.2 ? 0 : 1 + Math.floor(rand() * 4) * 0.5;
      const layer: PassLayer = {
        width: w,
        height: h,
        tileCost: cost,
        clearanceCode: clearanceCodes(bruteClearance(w, h, cost, 2)),
        minCost: 1,
        road: new Uint8Array(w * h),
      };
      const s = Math.floor(rand() * w * h), goal = Math.floor(rand() * w * h);
      const space = grid.configure(layer, 0, trial % 2 === 0 ? 4 : 8, goal);
      expect(answer(space, paged, [s], unlimited())).toEqual(answer(space, flat, [s], unlimited()));
    }
  });

  test("directional space (tank, rooms map): same expansions and path", () => {
    const layer = layerOf(tiledRoomRows(3, 3));
    const tank = BUILTIN_PROFILES.tank;
    const window = { x0: 0, y0: 0, x1: layer.width, y1: layer.height };
    const run = (ws: SearchWorkspace, q: number[]) => {
      const space = new DirectionalSpace();
      const lazy = new LazyGridBound();
      space.configure(directionalSetupOf(tank, layer, window, q, {
        lazyBound: lazy.configure(layer, window, q[2], q[3], q[0], q[1], false),
      }));
      space.useWorkspace(ws);
      return answer(space, ws, [space.snappedStart], { ...unlimited(), maxExpansions: 200_000 });
    };
    for (const q of [[16, 16, 80, 80], [20, 20, 27, 22], [76, 40, 44, 76]]) {
      const a = run(flat, q);
      const b = run(paged, q);
      expect(a.status).toBe("found");
      expect(b).toEqual(a);
    }
  });

  test("pages follow the work: a short search maps a few pages, the pool shrinks after a long one", () => {
    const side = 1024;
    const cost = new Float32Array(side * side).fill(1);
    const layer: PassLayer = {
      width: side,
      height: side,
      tileCost: cost,
      clearanceCode: clearanceCodes(new Float32Array(side * side).fill(8)),
      minCost: 1,
      road: new Uint8Array(side * side),
    };
    const ws = new SearchWorkspace(); // default threshold: 1024^2 states page
    const grid = new GridSpace();
    const long = astar(grid.configure(layer, 0, 8, 1000 * side + 1000), ws, [5 * side + 5], unlimited());
    expect(long.status).toBe("found");
    expect(ws.paged).toBe(true);
    const longPages = ws.pages.used;
    astar(grid.configure(layer, 0, 8, 500 * side + 510), ws, [500 * side + 500], unlimited());
    expect(ws.pages.used * PAGE_SIZE).toBeLessThan(1024);
    expect(ws.pages.used).toBeLessThan(longPages);
    // The pool keeps the long search's size for a while (short searches in between do not shrink it), then
    // follows the peak of the recent searches: after 32 short ones it is small again.
    const longBytes = ws.pages.bytes;
    expect(longBytes).toBeGreaterThan(longPages * PAGE_SIZE * 32);
    expect(longBytes).toBeLessThan(1.6 * longPages * PAGE_SIZE * 32 + 256 * 1024);
    for (let i = 0; i < 32; i++) {
      astar(grid.configure(layer, 0, 8, 500 * side + 510), ws, [500 * side + 500], unlimited());
    }
    expect(ws.pages.bytes).toBeLessThan(1 << 20);
    expect(ws.gOf(500 * side + 510)).toBe(astar(grid, flat, [500 * side + 500], unlimited()).cost);
  });
});
