/**
 * A patch's work is bounded by the map, not by its edits: 300,000 full-map edits on a 512x512 map apply in
 * well under 10 s (100,000 took 9.9 s in-process, 147 s over gRPC on the red team's map, before edits were painted
 * last-first, so 300,000 take ~30 s that way; painted last-first they take tens of ms, so the wide bound fails only
 * on the old way, never on a loaded machine), painting last-first gives exactly what painting in order gives, a patch of pathologically
 * overlapping narrow edits is refused quickly, and many rectangles are reported as their bounding box.
 */
import { describe, expect, test } from "vitest";
import { DEFAULT_LIMITS, MapStore } from "../../src/service/mapStore.ts";
import { applyEdits, MAX_REPORTED_RECTS, type TileEditSpec } from "../../src/service/mapPatch.ts";
import type { GridMap } from "../../src/maps/grid.ts";
import { ServiceError } from "../../src/service/errors.ts";
import { rng as seeded } from "../helpers/rng.ts";

function open(w: number, h: number): string {
  return `type octile\nheight ${h}\nwidth ${w}\nmap\n${(".".repeat(w) + "\n").repeat(h)}`;
}

/** Edits applied one after the other, the obvious way. */
function naive(from: GridMap, edits: TileEditSpec[]): Uint8Array {
  const t = Uint8Array.from(from.tiles);
  for (const e of edits) {
    for (let y = e.y; y < Math.min(from.height, e.y + e.height); y++) {
      for (let x = e.x; x < Math.min(from.width, e.x + e.width); x++) t[y * from.width + x] = e.code;
    }
  }
  return t;
}

describe("bounded patches", () => {
  test("300,000 full-map edits on a 512x512 map apply in under 10 s; the last one wins", async () => {
    const store = new MapStore({ dataDir: null, budgetBytes: 4e9, limits: DEFAULT_LIMITS });
    await store.put("m", store.parse({ kind: "movingai", text: open(512, 512) }, []), []);
    const edits = Array.from({ length: 300_000 }, (_, i) => ({
      x: 0,
      y: 0,
      width: 512,
      height: 512,
      code: i === 299_999 ? 64 : 46 + (i % 2) * 2,
    }));
    const t0 = performance.now();
    const ev = await store.patch("m", "", edits);
    const ms = performance.now() - t0;
    expect(ms).toBeLessThan(10_000);
    expect(ev.to.map.tiles.every((c) => c === 64)).toBe(true);
    expect(ev.rects).toEqual([{ x0: 0, y0: 0, x1: 512, y1: 512 }]);
  });

  test("painting last-first equals painting in order, on random overlapping edits", async () => {
    const store = new MapStore({ dataDir: null, budgetBytes: 1e9, limits: DEFAULT_LIMITS });
    const from = await store.put("r", store.parse({ kind: "movingai", text: open(37, 23) }, []), []);
    const rng = seeded(15);
    for (let round = 0; round < 40; round++) {
      const n = 1 + Math.floor(rng() * 200);
      const edits = Array.from({ length: n }, () => ({
        x: Math.floor(rng() * 37),
        y: Math.floor(rng() * 23),
        width: 1 + Math.floor(rng() * 40),
        height: 1 + Math.floor(rng() * 30),
        code: Math.floor(rng() * 4) === 0 ? 64 : 46 + Math.floor(rng() * 3),
      }));
      const { map, rects } = applyEdits(from.map, edits);
      expect([...map.tiles]).toEqual([...naive(from.map, edits)]);
      // Every changed tile lies in a reported rectangle.
      for (let i = 0; i < map.tiles.length; i++) {
        if (map.tiles[i] === from.map.tiles[i]) continue;
        const x = i % 37, y = Math.floor(i / 37);
        expect(rects.some((r) => x >= r.x0 && x < r.x1 && y >= r.y0 && y < r.y1)).toBe(true);
      }
    }
  });

  test("more than the reported maximum of rectangles collapse to their bounding box", async () => {
    const store = new MapStore({ dataDir: null, budgetBytes: 1e9, limits: DEFAULT_LIMITS });
    const from = await store.put("b", store.parse({ kind: "movingai", text: open(600, 4) }, []), []);
    const edits = Array.from({ length: MAX_REPORTED_RECTS + 1 }, (_, i) => ({
      x: 2 * i + 3,
      y: 1,
      width: 1,
      height: 2,
      code: 64,
    }));
    expect(applyEdits(from.map, edits).rects).toEqual([{
      x0: 3,
      y0: 1,
      x1: 2 * MAX_REPORTED_RECTS + 4,
      y1: 3,
    }]);
    expect(applyEdits(from.map, edits.slice(1)).rects.length).toBe(MAX_REPORTED_RECTS);
  });

  test("100,000 tall edits of the same two columns on a 4096x512 map are refused by the visit count", async () => {
    const store = new MapStore({ dataDir: null, budgetBytes: 4e9, limits: DEFAULT_LIMITS });
    await store.put("t", store.parse({ kind: "movingai", text: open(4096, 512) }, []), []);
    const edits = Array.from(
      { length: 100_000 },
      (_, i) => ({ x: i % 2, y: 0, width: 1, height: 512, code: 64 }),
    );
    // Refused by a count of row visits (deterministic), not by a clock.
    const err = await store.patch("t", "", edits).catch((e) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect(err.code).toBe("RESOURCE_EXHAUSTED");
    expect(err.message).toMatch(/^edits: the 100000 edits overlap too much/);
  });
});
