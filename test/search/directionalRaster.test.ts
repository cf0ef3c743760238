/**
 * The window raster's row bitmasks (the fast transition test): each tile's bits, now slid along the row from
 * the tile before instead of read cell by cell, still say exactly which cells of its row within the table's
 * reach are closed, on windows of every offset over a random map (reused raster, several windows in turn).
 */
import { describe, expect, test } from "vitest";
import { WindowRaster } from "../../src/search/directionalRaster.ts";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";
import { directionalSetupOf } from "../helpers/directionalSetup.ts";
import { layerOf } from "../helpers/pathCheck.ts";

/** A deterministic random map: `rate` of the tiles blocked (linear congruential generator). */
function randomRows(w: number, h: number, rate: number, seed: number): string[] {
  let s = seed >>> 0;
  const rows: string[] = [];
  for (let y = 0; y < h; y++) {
    let row = "";
    for (let x = 0; x < w; x++) {
      s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
      row += s / 2 ** 32 < rate ? "@" : ".";
    }
    rows.push(row);
  }
  return rows;
}

describe("window raster", () => {
  test("row bitmasks equal the closed cells of each tile's row within the reach", () => {
    const layer = layerOf(randomRows(90, 70, 0.2, 7));
    const raster = new WindowRaster();
    const windows = [
      { x0: 0, y0: 0, x1: 90, y1: 70 },
      { x0: 13, y0: 5, x1: 61, y1: 44 },
      { x0: 40, y0: 30, x1: 90, y1: 70 },
      { x0: 2, y0: 50, x1: 37, y1: 69 },
    ];
    let checked = 0;
    for (const window of windows) {
      const setup = directionalSetupOf(BUILTIN_PROFILES.tank, layer, window, [
        window.x0 + 1,
        window.y0 + 1,
        window.x1 - 2,
        window.y1 - 2,
      ]);
      raster.configure(setup);
      expect(raster.useRows).toBe(true);
      raster.ensureAll();
      const R = setup.hit.maxReach, W = raster.stride;
      for (let lt = 0; lt < raster.area; lt++) {
        const lx = lt % W;
        let want = 0;
        for (let q = 0; q <= 2 * R; q++) {
          const xx = lx + q - R;
          if (xx < 0 || xx >= W || raster.open[lt + q - R] === 0) want |= 1 << q;
        }
        if (raster.rowBits[lt] !== want) {
          throw new Error(`window ${JSON.stringify(window)}, local tile ${lt}`);
        }
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(4000);
  });
});
