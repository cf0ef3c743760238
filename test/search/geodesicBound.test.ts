/**
 * The geodesic length bound of Directional A* (src/search/geodesicBound.ts): exact where the answer is known
 * by hand, between the straight line and a real grid path on random maps, and never above the remaining cost
 * along optimal directional paths through doors.
 */
import { describe, expect, test } from "vitest";
import { GeodesicBound } from "../../src/search/geodesicBound.ts";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";
import { gridBound, windowAround } from "../../src/planning/directional.ts";
import { astar, newSearchResult, reconstructPath, SearchWorkspace } from "../../src/search/astar.ts";
import { DirectionalSpace } from "../../src/search/directionalSpace.ts";
import { directionalSetupOf } from "../helpers/directionalSetup.ts";
import { contextOf, doorRows, layerOf } from "../helpers/pathCheck.ts";
import { tileClearance } from "../../src/maps/grid.ts";

let seed = 4242;
function rand(): number {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
}

/** A bound over `open` (rows x cols, 1 = open) with no padding; everything off the grid is closed. */
function boundOver(
  open: Uint8Array,
  cols: number,
  rows: number,
  gx: number,
  gy: number,
  clearance = 0,
): GeodesicBound {
  const g = new GeodesicBound();
  g.configure(open, cols, rows, 0, () => false, [gx, gy], clearance);
  return g;
}

/** 8-connected distance between tile centers without corner cutting (a path the center may take). */
function gridDistances(open: Uint8Array, cols: number, rows: number, goal: number): Float64Array {
  const d = new Float64Array(cols * rows).fill(Infinity);
  const done = new Uint8Array(cols * rows);
  d[goal] = 0;
  for (;;) {
    let u = -1;
    for (let i = 0; i < d.length; i++) if (!done[i] && d[i] < Infinity && (u < 0 || d[i] < d[u])) u = i;
    if (u < 0) break;
    done[u] = 1;
    const ux = u % cols, uy = (u - ux) / cols;
    for (let dy = -1; dy <= 1; dy++) {
      for (let dx = -1; dx <= 1; dx++) {
        const x = ux + dx, y = uy + dy;
        if ((dx === 0 && dy === 0) || x < 0 || y < 0 || x >= cols || y >= rows) continue;
        if (!open[y * cols + x] || !open[uy * cols + x] || !open[y * cols + ux]) continue;
        const nd = d[u] + Math.hypot(dx, dy);
        if (nd < d[y * cols + x]) d[y * cols + x] = nd;
      }
    }
  }
  return d;
}

describe("geodesic bound", () => {
  test("exact around a wall: straight line when visible, else through the door's corner", () => {
    // 12 x 9, a wall at x = 6 except a door at y = 1.
    const cols = 12, rows = 9;
    const open = new Uint8Array(cols * rows).fill(1);
    for (let y = 2; y < rows; y++) open[y * cols + 6] = 0;
    const g = boundOver(open, cols, rows, 10.5, 7.5);
    expect(g.at(8, 3)).toBeCloseTo(Math.hypot(10.5 - 8.5, 7.5 - 3.5), 12);
    // From (2.5, 7.5) the shortest way bends at the wall's top corners (6, 2) and (7, 2).
    const viaCorners = Math.hypot(6 - 2.5, 2 - 7.5) + 1 + Math.hypot(10.5 - 7, 7.5 - 2);
    expect(g.at(2, 7)).toBeCloseTo(viaCorners, 12);
    // A closed wall: nothing visible.
    open[1 * cols + 6] = 0;
    open[0 * cols + 6] = 0;
    expect(boundOver(open, cols, rows, 10.5, 7.5).at(2, 7)).toBe(Infinity);
  });

  test("with clearance: bends at the grown corners of a door, and a door narrower than the unit is shut", () => {
    // 12 x 9, a wall at x = 6 except a door at y = 3..5.
    const cols = 12, rows = 9;
    const open = new Uint8Array(cols * rows).fill(1);
    for (let y = 0; y < rows; y++) if (y < 3 || y > 5) open[y * cols + 6] = 0;
    const rho = 0.9;
    const a = rho * (1 - 1e-9) / Math.SQRT2;
    const g = boundOver(open, cols, rows, 10.5, 7.5, rho);
    const expected = Math.hypot(6 - a - 2.5, 6 - a - 7.5) + 1 + 2 * a + Math.hypot(10.5 - 7 - a, 7.5 - 6 + a);
    expect(g.at(2, 7)).toBeCloseTo(expected, 9);
    // Never below the bound without clearance (the region only shrinks).
    expect(g.at(2, 7)).toBeGreaterThan(boundOver(open, cols, rows, 10.5, 7.5).at(2, 7));
    // A one-tile door: open to a unit of inscribed radius 0.4, shut to one of 0.9.
    open[3 * cols + 6] = 0;
    open[5 * cols + 6] = 0;
    expect(boundOver(open, cols, rows, 10.5, 7.5, 0.4).at(2, 7)).toBeLessThan(Infinity);
    expect(boundOver(open, cols, rows, 10.5, 7.5, 0.9).at(2, 7)).toBe(Infinity);
  });

  test("a seam between two blocked tiles is not a way through; a diagonal pinch is allowed", () => {
    const cols = 4, rows = 4;
    const open = new Uint8Array(cols * rows).fill(1);
    // Column 1 closed except the seam between (1, 1) and (1, 2) would be the only way: it must not count.
    for (let y = 0; y < rows; y++) open[y * cols + 1] = 0;
    const g = boundOver(open, cols, rows, 3.5, 1.5);
    expect(g.visible(0.5, 2, 3.5, 2)).toBe(false);
    expect(g.at(0, 1)).toBe(Infinity);
    // Two diagonal blocked tiles: the segment through their shared corner is allowed (lenient).
    const p = new Uint8Array(cols * rows).fill(1);
    p[1 * cols + 1] = 0;
    p[2 * cols + 2] = 0;
    expect(boundOver(p, cols, rows, 3.5, 0.5).visible(0.5, 3.5, 3.5, 0.5)).toBe(true);
  });

  test("between the straight line and a real grid path on random maps", () => {
    for (let m = 0; m < 20; m++) {
      const cols = 18, rows = 14;
      const open = new Uint8Array(cols * rows);
      for (let i = 0; i < open.length; i++) open[i] = rand() < 0.28 ? 0 : 1;
      const goal = Math.floor(rand() * open.length);
      open[goal] = 1;
      const gx = goal % cols, gy = (goal - gx) / cols;
      const px = gx + 0.2 + 0.6 * rand(), py = gy + 0.2 + 0.6 * rand();
      const g = boundOver(open, cols, rows, px, py);
      const grown = boundOver(open, cols, rows, px, py, 0.3 + 0.6 * rand());
      const grid = gridDistances(open, cols, rows, goal);
      for (let y = 0; y < rows; y++) {
        for (let x = 0; x < cols; x++) {
          if (!open[y * cols + x]) continue;
          const d = g.at(x, y);
          expect(grown.at(x, y)).toBeGreaterThanOrEqual(d - 1e-9);
          expect(d).toBeGreaterThanOrEqual(Math.hypot(x + 0.5 - px, y + 0.5 - py) - 1e-9);
          const upper = grid[y * cols + x] + Math.hypot(gx + 0.5 - px, gy + 0.5 - py);
          if (upper < Infinity) expect(d).toBeLessThanOrEqual(upper + 1e-9);
        }
      }
    }
  });

  test.each(["tank", "jeep"])(
    "never above the remaining cost along optimal paths through doors (%s)",
    (name) => {
      const layer = layerOf(doorRows());
      const ctx = contextOf(layer);
      const tank = { ...BUILTIN_PROFILES[name] };
      const ws = new SearchWorkspace();
      const space = new DirectionalSpace();
      let checked = 0;
      for (let i = 0; i < 12; i++) {
        const sx = 2 + Math.floor(rand() * 9), sy = 2 + Math.floor(rand() * 36);
        const gx = 29 + Math.floor(rand() * 9), gy = 2 + Math.floor(rand() * 36);
        if (
          tileClearance(layer, sy * layer.width + sx) < 1.5 ||
          tileClearance(layer, gy * layer.width + gx) < 1.5
        ) {
          continue;
        }
        const window = windowAround(layer, sx, sy, gx, gy, 32);
        space.configure(directionalSetupOf(tank, layer, window, [sx, sy, gx, gy], {
          start: { x: sx + 0.5, y: sy + 0.5, heading: Math.floor(rand() * 16) * Math.PI / 8 },
          gridBound: gridBound(ctx, layer, window, gy * layer.width + gx, false),
          // Analytic expansion off: the graph is then fixed, and A* with an admissible heuristic is optimal on it.
          analyticInterval: 0,
        }));
        space.useWorkspace(ws);
        const r = astar(space, ws, [space.snappedStart], {
          maxExpansions: 200000,
          deadline: Infinity,
          cancel: null,
          trackNearest: false,
        }, newSearchResult());
        expect(r.status).toBe("found");
        const path = reconstructPath(ws, r.goal);
        for (const s of path) {
          expect(space.heuristic(s)).toBeLessThanOrEqual(r.cost - ws.g[s]);
          checked++;
        }
      }
      expect(checked).toBeGreaterThan(50);
    },
  );
});
