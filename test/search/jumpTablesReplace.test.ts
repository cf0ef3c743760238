/**
 * Two workers may build the same jump tables at once (both got a first query before either published). The pool
 * then sends the late builder the published set, and it must drop its own for it (worker.ts adopts with
 * `replace`): otherwise every such worker kept a map-sized copy for the layer's life (4 workers on a 1024^2 city
 * map: ~20 bytes a tile more than 2 workers, measured with bench/mapGrowth.ts).
 */
import { describe, expect, test } from "vitest";
import { buildPassLayer } from "../../src/maps/layer.ts";
import { rawTerrain } from "../../src/maps/terrain.ts";
import type { PassLayer } from "../../src/maps/grid.ts";
import { adoptJumpTables, forgetJumpTables, straightJumps } from "../../src/search/jumpTables.ts";

/** A 40x30 layer with a wall (a fresh object each call: another thread's copy of the same layer). */
function layer(): PassLayer {
  const w = 40, h = 30;
  const tiles = new Uint8Array(w * h);
  for (let y = 3; y < 25; y++) tiles[y * w + 17] = 1;
  return buildPassLayer({ width: w, height: h, tiles }, rawTerrain());
}

describe("adopting published jump tables over a set of this thread's", () => {
  test("without replace the thread keeps its own set; with replace the published set takes its place", () => {
    const mine = layer();
    const published = straightJumps(layer(), 0.5);
    const own = straightJumps(mine, 0.5);
    expect(own).not.toBe(published);
    adoptJumpTables(mine, 0.5, published);
    expect(straightJumps(mine, 0.5)).toBe(own);
    adoptJumpTables(mine, 0.5, published, true);
    expect(straightJumps(mine, 0.5)).toBe(published);
    // The same distances either way.
    expect([...published.east]).toEqual([...own.east]);
    // Adopting the same set again changes nothing.
    adoptJumpTables(mine, 0.5, published, true);
    expect(straightJumps(mine, 0.5)).toBe(published);
    forgetJumpTables(mine);
  });
});
