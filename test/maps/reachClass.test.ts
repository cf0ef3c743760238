/**
 * The over-approximating clearance class (reachClearanceClass in src/maps/layer.ts, with inscribedRadius in
 * src/units/footprint.ts): every tile a legal pose's center can lie in is open at it, so region tables at that
 * class never separate two poses a legal motion joins. Property tests on random maps, with the exact legality
 * test of src/geometry/sweep.ts deciding what is legal.
 */
import { describe, expect, test } from "vitest";
import { buildPassLayer, clearanceClass, reachClearanceClass } from "../../src/maps/layer.ts";
import { buildRegionTable } from "../../src/maps/regionBuild.ts";
import { sameComponent } from "../../src/maps/regions.ts";
import { movingAiTerrain } from "../../src/maps/terrain.ts";
import { footprintHitsBlocked, segmentHitsBlocked } from "../../src/geometry/sweep.ts";
import { mayHoldCenter, reachLabels } from "../../src/geometry/footprintReach.ts";
import { arcSegment, lineSegment } from "../../src/geometry/segment.ts";
import { boundingRadius, type Footprint, inscribedRadius } from "../../src/units/footprint.ts";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";
import { type PassLayer, tileClearance } from "../../src/maps/grid.ts";
import { rng } from "../helpers/rng.ts";

/** A random map: blocked tiles with the given density, in blobs of random sizes. */
function randomLayer(rand: () => number, width: number, height: number, density: number): PassLayer {
  const tiles = new Uint8Array(new SharedArrayBuffer(width * height)).fill(".".charCodeAt(0));
  const blobs = Math.round((width * height * density) / 3);
  for (let b = 0; b < blobs; b++) {
    const x = Math.floor(rand() * width), y = Math.floor(rand() * height);
    const w = 1 + Math.floor(rand() * 3), h = 1 + Math.floor(rand() * 3);
    for (let j = y; j < Math.min(height, y + h); j++) {
      for (let i = x; i < Math.min(width, x + w); i++) tiles[j * width + i] = "@".charCodeAt(0);
    }
  }
  return buildPassLayer({ width, height, tiles }, movingAiTerrain());
}

function randomFootprint(rand: () => number): Footprint {
  if (rand() < 0.5) return { radius: rand() * 2.2, width: 0, length: 0 };
  const width = 0.2 + rand() * 2.8;
  return { radius: 0, width, length: width + rand() * 2 };
}

/** The closed tiles containing (x, y): one, two on a border, four at a corner. */
function closedTiles(x: number, y: number): [number, number][] {
  const xs = Number.isInteger(x) ? [x - 1, x] : [Math.floor(x)];
  const ys = Number.isInteger(y) ? [y - 1, y] : [Math.floor(y)];
  return xs.flatMap((tx) => ys.map((ty) => [tx, ty] as [number, number]));
}

describe("reachClearanceClass", () => {
  test("values: every open tile up to an inscribed radius of 1, and never above the tile-center class", () => {
    expect(reachClearanceClass(1e-6)).toBe(0.5);
    for (const name of ["jeep", "tank", "truck", "soldier", "boat"]) {
      expect(reachClearanceClass(inscribedRadius(BUILTIN_PROFILES[name].footprint))).toBe(0.5);
    }
    expect(reachClearanceClass(1)).toBe(0.5);
    expect(reachClearanceClass(1.2)).toBe(Math.fround(Math.SQRT1_2));
    expect(reachClearanceClass(Math.SQRT2)).toBe(Math.fround(Math.SQRT1_2));
    expect(reachClearanceClass(1.5)).toBe(1.5);
    expect(reachClearanceClass(40)).toBe(16);
    for (let r = 0.05; r < 10; r += 0.05) {
      expect(reachClearanceClass(r)).toBeLessThanOrEqual(clearanceClass(r));
    }
  });

  test("inscribed radius: the disc's radius, a rectangle's half shorter side", () => {
    expect(inscribedRadius({ radius: 0.9, width: 0, length: 0 })).toBe(0.9);
    expect(inscribedRadius({ radius: 0, width: 0.8, length: 1.4 })).toBeCloseTo(0.4, 12);
    expect(inscribedRadius({ radius: 0, width: 3, length: 1 })).toBe(0.5);
    expect(inscribedRadius({ radius: 0, width: 0, length: 0 })).toBe(1e-6);
  });

  test("it is tight: a legal pose exists in a tile of clearance exactly the class", () => {
    // The tank (radius 0.9) on the centre line of a 2-wide corridor: both tiles have clearance 0.5.
    const rows = ["@@@@@@", "......", "......", "@@@@@@"];
    const tiles = new Uint8Array(new SharedArrayBuffer(24));
    rows.forEach((r, y) => [...r].forEach((c, x) => (tiles[y * 6 + x] = c.charCodeAt(0))));
    const layer = buildPassLayer({ width: 6, height: 4, tiles }, movingAiTerrain());
    const fp = BUILTIN_PROFILES.tank.footprint;
    expect(footprintHitsBlocked(layer, 3, 2, 0, fp)).toBe(false);
    expect(tileClearance(layer, 1 * 6 + 3)).toBe(0.5);
    expect(clearanceClass(boundingRadius(fp))).toBeGreaterThan(0.5);
  });

  test("property: every closed tile a legal pose's center lies in is open at the class", () => {
    const rand = rng(1107);
    let legal = 0;
    for (let m = 0; m < 30; m++) {
      const layer = randomLayer(rand, 24, 20, 0.05 + rand() * 0.25);
      for (let k = 0; k < 400; k++) {
        const fp = randomFootprint(rand);
        // Centers on tile borders and corners too (a quarter of them), where the argument is at its limit.
        const snap = (v: number) => (rand() < 0.25 ? Math.round(v * 2) / 2 : v);
        const x = snap(rand() * layer.width), y = snap(rand() * layer.height);
        const h = rand() * 2 * Math.PI;
        if (footprintHitsBlocked(layer, x, y, h, fp)) continue;
        legal++;
        const cls = reachClearanceClass(inscribedRadius(fp));
        for (const [tx, ty] of closedTiles(x, y)) {
          if (tx < 0 || ty < 0 || tx >= layer.width || ty >= layer.height) continue;
          const t = ty * layer.width + tx;
          expect(layer.tileCost[t]).toBeGreaterThan(0);
          expect(tileClearance(layer, t)).toBeGreaterThanOrEqual(cls);
        }
      }
    }
    expect(legal).toBeGreaterThan(1000);
  });

  test("property: the region table at the class joins the ends of every legal segment", () => {
    const rand = rng(4242);
    let joined = 0;
    for (let m = 0; m < 12; m++) {
      const layer = randomLayer(rand, 32, 32, 0.1 + rand() * 0.2);
      const tables = new Map<number, ReturnType<typeof buildRegionTable>>();
      for (let k = 0; k < 600; k++) {
        const fp = randomFootprint(rand);
        const start = { x: rand() * layer.width, y: rand() * layer.height, heading: rand() * 2 * Math.PI };
        const length = 1 + rand() * 12;
        const seg = rand() < 0.5
          ? lineSegment(start, length)
          : arcSegment(start, (rand() - 0.5) * 1.5, length);
        if (segmentHitsBlocked(layer, seg, fp)) continue;
        const end = seg.end;
        if (end.x < 0 || end.y < 0 || end.x >= layer.width || end.y >= layer.height) continue;
        const cls = reachClearanceClass(inscribedRadius(fp));
        if (!tables.has(cls)) tables.set(cls, buildRegionTable(layer, cls, 16));
        const a = Math.floor(start.y) * layer.width + Math.floor(start.x);
        const b = Math.floor(end.y) * layer.width + Math.floor(end.x);
        expect(sameComponent(tables.get(cls)!, a, b)).toBe(true);
        joined++;
      }
    }
    expect(joined).toBeGreaterThan(300);
  });
});

describe("footprint reach labels (src/geometry/footprintReach.ts)", () => {
  test("a 1-wide door is closed to a disc of radius 0.9, open to one of 0.5; a 2-wide corridor to 0.9", () => {
    const rows = ["@@@@@@@", "@..@..@", "@.....@", "@..@..@", "@@@@@@@"];
    const tiles = new Uint8Array(new SharedArrayBuffer(35));
    rows.forEach((r, y) => [...r].forEach((c, x) => (tiles[y * 7 + x] = c.charCodeAt(0))));
    const layer = buildPassLayer({ width: 7, height: 5, tiles }, movingAiTerrain());
    expect(mayHoldCenter(layer, 3, 2, 0.9, reachClearanceClass(0.9))).toBe(false);
    expect(mayHoldCenter(layer, 3, 2, 0.5, reachClearanceClass(0.5))).toBe(true);
    expect(mayHoldCenter(layer, 1, 2, 0.9, reachClearanceClass(0.9))).toBe(true);
    const labels = reachLabels(layer, 0.9, reachClearanceClass(0.9));
    expect(labels[2 * 7 + 1]).toBeGreaterThanOrEqual(0);
    expect(labels[2 * 7 + 5]).toBeGreaterThanOrEqual(0);
    expect(labels[2 * 7 + 1]).not.toBe(labels[2 * 7 + 5]);
  });

  test("property: every closed tile a legal pose's center lies in may hold it, and legal segments stay in one label", () => {
    const rand = rng(3131);
    let legal = 0;
    for (let m = 0; m < 12; m++) {
      const layer = randomLayer(rand, 28, 24, 0.1 + rand() * 0.25);
      const cache = new Map<number, Int32Array>();
      for (let k = 0; k < 500; k++) {
        const fp = randomFootprint(rand);
        const inscribed = inscribedRadius(fp);
        const cls = reachClearanceClass(inscribed);
        const snap = (v: number) => (rand() < 0.25 ? Math.round(v * 2) / 2 : v);
        const start = {
          x: snap(rand() * layer.width),
          y: snap(rand() * layer.height),
          heading: rand() * 6.3,
        };
        if (footprintHitsBlocked(layer, start.x, start.y, start.heading, fp)) continue;
        legal++;
        for (const [tx, ty] of closedTiles(start.x, start.y)) {
          expect(mayHoldCenter(layer, tx, ty, inscribed, cls)).toBe(true);
        }
        const length = 1 + rand() * 10;
        const seg = rand() < 0.5
          ? lineSegment(start, length)
          : arcSegment(start, (rand() - 0.5) * 1.5, length);
        if (segmentHitsBlocked(layer, seg, fp)) continue;
        if (!cache.has(inscribed)) cache.set(inscribed, reachLabels(layer, inscribed, cls));
        const labels = cache.get(inscribed)!;
        const a = Math.floor(start.y) * layer.width + Math.floor(start.x);
        const b = Math.floor(seg.end.y) * layer.width + Math.floor(seg.end.x);
        expect(labels[a]).toBeGreaterThanOrEqual(0);
        expect(labels[b]).toBe(labels[a]);
      }
    }
    expect(legal).toBeGreaterThan(1000);
  });
});

describe("mayHoldCenter against a dense search", () => {
  /** Exact distance from (x, y) to the nearest blocked square (or the map's outside) within 4 tiles, else 4. */
  function freeDistance(layer: PassLayer, x: number, y: number): number {
    let best = 4;
    for (let ty = Math.floor(y) - 4; ty <= Math.floor(y) + 4; ty++) {
      for (let tx = Math.floor(x) - 4; tx <= Math.floor(x) + 4; tx++) {
        const off = tx < 0 || ty < 0 || tx >= layer.width || ty >= layer.height;
        if (!off && layer.tileCost[ty * layer.width + tx] > 0) continue;
        const dx = Math.max(tx - x, 0, x - tx - 1), dy = Math.max(ty - y, 0, y - ty - 1);
        best = Math.min(best, Math.hypot(dx, dy));
      }
    }
    return best;
  }

  test("a disc just fitting at the tile's freest point (off the test's lattice) is never refused", () => {
    const rand = rng(909);
    let tried = 0;
    for (let m = 0; m < 10; m++) {
      const layer = randomLayer(rand, 20, 16, 0.15 + rand() * 0.2);
      for (let k = 0; k < 60; k++) {
        const tx = Math.floor(rand() * layer.width), ty = Math.floor(rand() * layer.height);
        if (layer.tileCost[ty * layer.width + tx] === 0) continue;
        // The freest point of the tile on a dense 61 x 61 lattice, and a radius that only just fits there.
        let best = 0;
        for (let j = 0; j <= 60; j++) {
          for (let i = 0; i <= 60; i++) best = Math.max(best, freeDistance(layer, tx + i / 60, ty + j / 60));
        }
        const inscribed = best - 1e-3;
        if (!(inscribed > 0.05) || best >= 4) continue;
        tried++;
        expect(mayHoldCenter(layer, tx, ty, inscribed, reachClearanceClass(inscribed))).toBe(true);
      }
    }
    expect(tried).toBeGreaterThan(200);
  });
});
