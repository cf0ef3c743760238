/**
 * Safe-interval path planning on the A* core (search/sippSpace.ts): the earliest arrival on a case small enough to
 * work out by hand (a corridor with a tile taken for a while: the unit waits before it), a unit crossing the other's
 * way (the route never holds a tile while it is taken, and arrives later than the free run), the goal taken for good
 * (no route), the start tile taken at the start (no route; with leaveStart it may leave it), and the state budget honoured. Occupancy is given directly (the reservation side is
 * motion/safeIntervals.ts's job, tested beside it).
 */
import { describe, expect, test } from "vitest";
import type { PassLayer } from "../../src/maps/grid.ts";
import { SearchWorkspace, unlimited } from "../../src/search/astar.ts";
import { type SippQuery, sippRoute, SippSpace } from "../../src/search/sippSpace.ts";
import { clearanceCodes } from "../helpers/clearanceCodes.ts";

/** A layer from rows of "." (open, clearance 1) and "@" (blocked). */
function layerOf(rows: string[]): PassLayer {
  const width = rows[0].length, height = rows.length;
  const tileCost = new Float32Array(width * height), clearance = new Float32Array(width * height);
  rows.forEach((r, y) => {
    for (let x = 0; x < width; x++) {
      if (r[x] === ".") [tileCost[y * width + x], clearance[y * width + x]] = [1, 1];
    }
  });
  return {
    width,
    height,
    tileCost,
    clearanceCode: clearanceCodes(clearance),
    minCost: 1,
    road: new Uint8Array(1),
  };
}

function query(layer: PassLayer, over: Partial<SippQuery>): SippQuery {
  return {
    layer,
    clearance: 0.5,
    start: 0,
    startTime: 0,
    goal: 0,
    speed: 1,
    occupied: () => [],
    maxStates: 10_000,
    ...over,
  };
}

const space = new SippSpace(), ws = new SearchWorkspace();

/**
 * Checks the route against the model: consecutive tiles are neighbours, each move takes its length over the speed
 * (or more, with a wait before it), and each tile is held (from halfway through the move onto it until halfway
 * through the move off it; from the start, and for good at the goal) only while no one else takes it.
 */
function expectValid(q: SippQuery, tiles: Int32Array, times: Float64Array): void {
  const w = q.layer.width;
  expect(tiles[0]).toBe(q.start);
  expect(tiles[tiles.length - 1]).toBe(q.goal);
  expect(times[0]).toBe(q.startTime);
  const move = (i: number) => {
    const dx = Math.abs((tiles[i] % w) - (tiles[i - 1] % w)),
      dy = Math.abs(Math.floor(tiles[i] / w) - Math.floor(tiles[i - 1] / w));
    expect(Math.max(dx, dy)).toBe(1);
    return Math.hypot(dx, dy) / q.speed;
  };
  for (let i = 0; i < tiles.length; i++) {
    const from = i === 0 ? q.startTime : times[i] - move(i) / 2;
    const to = i === tiles.length - 1 ? Infinity : times[i + 1] - move(i + 1) / 2;
    if (i > 0) expect(times[i] - times[i - 1]).toBeGreaterThanOrEqual(move(i) - 1e-6);
    const occ = q.occupied(tiles[i]);
    for (let j = 0; j < occ.length; j += 2) {
      const overlaps = occ[j] < to - 1e-6 && from + 1e-6 < occ[j + 1];
      expect(overlaps, `tile ${tiles[i]} held ${from}..${to}, taken ${occ[j]}..${occ[j + 1]}`).toBe(false);
    }
  }
}

describe("sippRoute", () => {
  // A corridor of five tiles (walls around): 0 1 2 3 4 on row 1.
  const corridor = layerOf(["@@@@@@@", "@.....@", "@@@@@@@"]);
  const at = (x: number) => 7 + 1 + x;

  test("free corridor: straight through at speed", () => {
    const q = query(corridor, { start: at(0), goal: at(4) });
    const r = sippRoute(space, ws, q, unlimited())!;
    expect([...r.tiles]).toEqual([0, 1, 2, 3, 4].map(at));
    expect([...r.times].map((t) => +t.toFixed(6))).toEqual([0, 1, 2, 3, 4]);
  });

  test("a tile taken from 1 s to 3 s: the unit waits before it and arrives at 5.5 s (worked by hand)", () => {
    // It reaches tile 1 at 1 s; tile 2 is handed over halfway through the move, so not before 3 s: it leaves
    // tile 1 at 2.5 s, reaches tile 2 at 3.5 s, tile 3 at 4.5 s and tile 4 at 5.5 s.
    const taken = at(2);
    const q = query(corridor, { start: at(0), goal: at(4), occupied: (t) => t === taken ? [1, 3] : [] });
    const r = sippRoute(space, ws, q, unlimited())!;
    expect([...r.tiles]).toEqual([0, 1, 2, 3, 4].map(at));
    expect([...r.times].map((t) => +t.toFixed(6))).toEqual([0, 1, 3.5, 4.5, 5.5]);
    expectValid(q, r.tiles, r.times);
  });

  test("a start later than the taking: no wait", () => {
    const taken = at(2);
    const q = query(corridor, {
      start: at(0),
      goal: at(4),
      startTime: 10,
      occupied: (t) => t === taken ? [1, 3] : [],
    });
    const r = sippRoute(space, ws, q, unlimited())!;
    expect(r.times[r.times.length - 1]).toBeCloseTo(14, 6);
  });

  test("crossing another unit's way: never holds a tile while it is taken, arrives after the free run", () => {
    // An open 9x9 field; another unit drives along row 4 from x = 0 to 8 at 1 tile/s, taking (x, 4) from x - 0.6
    // to x + 0.6 s; ours goes from (4, 0) to (4, 8) at 1 tile/s and would meet it at (4, 4) at 4 s.
    const field = layerOf(Array.from({ length: 9 }, () => "........."));
    const w = 9;
    const occupied = (t: number) => {
      const x = t % w, y = Math.floor(t / w);
      return y === 4 ? [x - 0.6, x + 0.6] : [];
    };
    const q = query(field, { start: 4, goal: 8 * w + 4, occupied });
    const r = sippRoute(space, ws, q, unlimited())!;
    expectValid(q, r.tiles, r.times);
    expect(r.times[r.times.length - 1]).toBeGreaterThan(8);
    // Without the other unit: 8 s straight down.
    const free = sippRoute(space, ws, query(field, { start: 4, goal: 8 * w + 4 }), unlimited())!;
    expect(free.times[free.times.length - 1]).toBeCloseTo(8, 6);
  });

  test("the goal taken for good: no route; the start taken at the start: no route (without leaveStart)", () => {
    const goal = at(4), start = at(0);
    expect(sippRoute(
      space,
      ws,
      query(corridor, {
        start,
        goal,
        occupied: (t) => t === goal ? [5, Infinity] : [],
      }),
      unlimited(),
    )).toBeNull();
    expect(sippRoute(
      space,
      ws,
      query(corridor, {
        start,
        goal,
        occupied: (t) => t === start ? [-1, 1] : [],
      }),
      unlimited(),
    )).toBeNull();
  });

  test("leaveStart: the start taken at the start (a unit close beside it): it sets out; a later taking holds", () => {
    const start = at(0), goal = at(4);
    // Someone stands beside the unit for good, closer than the padded model allows: it leaves at once.
    for (const taken of [[-1, 1], [-Infinity, Infinity], [0, 0]]) {
      const r = sippRoute(
        space,
        ws,
        query(corridor, { start, goal, leaveStart: true, occupied: (t) => t === start ? taken : [] }),
        unlimited(),
      )!;
      expect([...r.tiles], String(taken)).toEqual([0, 1, 2, 3, 4].map(at));
      expect([...r.times].map((t) => +t.toFixed(6))).toEqual([0, 1, 2, 3, 4]);
    }
    // The next tile is taken until 8 s (handed over from 7.5 s on) but the start tile again from 5 s: no waiting
    // there that long, so no route.
    expect(sippRoute(
      space,
      ws,
      query(corridor, {
        start,
        goal,
        leaveStart: true,
        occupied: (t) => t === start ? [-1, 1, 5, 6] : t === at(1) ? [0, 8] : [],
      }),
      unlimited(),
    )).toBeNull();
    // Without the later taking it waits at the start and goes at 7.5 s.
    const r = sippRoute(
      space,
      ws,
      query(corridor, {
        start,
        goal,
        leaveStart: true,
        occupied: (t) => t === start ? [-1, 1] : t === at(1) ? [0, 8] : [],
      }),
      unlimited(),
    )!;
    expect([...r.times].map((t) => +t.toFixed(6))).toEqual([0, 8.5, 9.5, 10.5, 11.5]);
  });

  test("a goal taken for a while is reached after it frees; walls and corners are respected", () => {
    // An L: the way from the top-left to the bottom-right goes round the wall block, with no corner cut.
    const l = layerOf(["@@@@@", "@...@", "@.@@@", "@...@", "@@@@@"]);
    const w = 5, start = w + 3, goal = 3 * w + 3;
    const q = query(l, { start, goal, occupied: (t) => t === goal ? [0, 6] : [] });
    const r = sippRoute(space, ws, q, unlimited())!;
    expectValid(q, r.tiles, r.times);
    expect([...r.tiles]).toEqual([w + 3, w + 2, w + 1, 2 * w + 1, 3 * w + 1, 3 * w + 2, 3 * w + 3]);
    // Six straight moves, but the goal is handed over no earlier than 6 s: it arrives at 6.5 s.
    expect(r.times[r.times.length - 1]).toBeCloseTo(6.5, 6);
  });

  test("the state budget is honoured (no route beyond it)", () => {
    const field = layerOf(Array.from({ length: 9 }, () => "........."));
    const q = query(field, { start: 0, goal: 80, maxStates: 5 });
    expect(sippRoute(space, ws, q, unlimited())).toBeNull();
    expect(sippRoute(space, ws, { ...q, maxStates: 1000 }, unlimited())).not.toBeNull();
  });
});
