/**
 * Shared jump tables stay out of a thread's byte-bounded LRU: the sharer (the worker pool) holds them for the
 * layer's life, so evicting them freed nothing and had the next query build them again. At 8192^2 one set is
 * 336 MB, more than the 256 MB bound: after `prepare` a worker that built class 0.5 and adopted class 1.5 from
 * the other lost its 0.5 set, and the soldier's first GRID query built it a second time.
 */
import { afterEach, describe, expect, test } from "vitest";
import { buildPassLayer } from "../../src/maps/layer.ts";
import { rawTerrain } from "../../src/maps/terrain.ts";
import type { PassLayer } from "../../src/maps/grid.ts";
import {
  adoptJumpTables,
  forgetJumpTables,
  hasJumpTables,
  jumpTableBytes,
  setJumpCacheLimit,
  shareJumpTables,
  straightJumps,
} from "../../src/search/jumpTables.ts";

/** A 64x48 layer with a few walls (a fresh object each call: another thread's copy of the same layer). */
function layer(): PassLayer {
  const w = 64, h = 48;
  const tiles = new Uint8Array(w * h);
  for (let y = 5; y < 40; y++) tiles[y * w + 20] = 1;
  for (let x = 30; x < 60; x++) tiles[25 * w + x] = 1;
  return buildPassLayer({ width: w, height: h, tiles }, rawTerrain());
}

let restore: number | null = null;
afterEach(() => {
  if (restore !== null) setJumpCacheLimit(restore);
  restore = null;
});

describe("shared jump tables and the per-thread LRU", () => {
  test("adopting another class does not evict a set of this thread's (bound below two sets)", () => {
    const mine = layer();
    const other = layer(); // the other worker's view: same cells, its own build
    const theirs = straightJumps(other, 1.5);
    shareJumpTables(other, 1.5); // (the other thread's part; here the same LRU)
    restore = setJumpCacheLimit(Math.floor(jumpTableBytes(theirs) * 1.5));
    straightJumps(mine, 0.5);
    adoptJumpTables(mine, 1.5, theirs);
    expect(hasJumpTables(mine, 1.5)).toBe(true);
    expect(hasJumpTables(mine, 0.5)).toBe(true);
    forgetJumpTables(mine);
    forgetJumpTables(other);
    expect(hasJumpTables(mine, 0.5)).toBe(false);
  });

  test("a set this thread built and shared survives later builds of its own", () => {
    const mine = layer();
    restore = setJumpCacheLimit(Math.floor(jumpTableBytes(straightJumps(layer(), 0.5)) * 1.5));
    const built = straightJumps(mine, 0.5);
    shareJumpTables(mine, 0.5);
    straightJumps(mine, 1.5);
    straightJumps(mine, 2.5); // own and not shared: evicts 1.5, not the shared 0.5
    expect(hasJumpTables(mine, 0.5)).toBe(true);
    expect(straightJumps(mine, 0.5)).toBe(built);
    expect(hasJumpTables(mine, 1.5)).toBe(false);
    expect(hasJumpTables(mine, 2.5)).toBe(true);
    forgetJumpTables(mine);
  });
});
