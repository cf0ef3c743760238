import { describe, expect, test } from "vitest";
import { angleDifference, mod2pi, normalizeAngle, wrapPi } from "../../src/geometry/angle.ts";
import {
  arcCenter,
  arcSegment,
  joinError,
  lineSegment,
  pathLength,
  poseAlong,
  poseAtDistance,
  poseAtTime,
} from "../../src/geometry/segment.ts";
import {
  discHitsBlocked,
  footprintHitsBlocked,
  pathHitsBlocked,
  segmentHitsBlocked,
  sweptCells,
} from "../../src/geometry/sweep.ts";
import type { PassLayer } from "../../src/maps/grid.ts";
import { bruteClearance } from "../helpers/clearance.ts";
import { clearanceCodes } from "../helpers/clearanceCodes.ts";
import type { Pose, Segment } from "../../src/geometry/types.ts";
import type { Footprint } from "../../src/units/footprint.ts";

/** A deterministic generator so failures reproduce. */
function rng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 15), z | 1);
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61);
    return ((z ^ (z >>> 14)) >>> 0) / 4294967296;
  };
}

/** Builds a PassLayer from rows of text: '#' blocked, anything else passable. Row 0 is y = 0. */
function layerFrom(rows: string[]): PassLayer {
  const height = rows.length;
  const width = rows[0].length;
  const tileCost = new Float32Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) tileCost[y * width + x] = rows[y][x] === "#" ? 0 : 1;
  }
  return {
    width,
    height,
    tileCost,
    clearanceCode: new Uint8Array(width * height),
    minCost: 1,
    road: new Uint8Array(width * height),
  };
}

const disc = (radius: number): Footprint => ({ radius, width: 0, length: 0 });
const rect = (width: number, length: number): Footprint => ({ radius: 0, width, length });

describe("angles", () => {
  test("normalizeAngle wraps into [-pi, pi)", () => {
    expect(normalizeAngle(Math.PI)).toBe(-Math.PI);
    expect(normalizeAngle(-Math.PI)).toBe(-Math.PI);
    expect(normalizeAngle(3 * Math.PI / 2)).toBeCloseTo(-Math.PI / 2, 15);
    expect(normalizeAngle(0.5 + 20 * Math.PI)).toBeCloseTo(0.5, 12);
    for (let a = -50; a < 50; a += 0.37) {
      const w = normalizeAngle(a);
      expect(w).toBeGreaterThanOrEqual(-Math.PI);
      expect(w).toBeLessThan(Math.PI);
      expect(Math.abs(Math.sin(w) - Math.sin(a))).toBeLessThan(1e-12);
      expect(Math.abs(Math.cos(w) - Math.cos(a))).toBeLessThan(1e-12);
    }
  });
  test("mod2pi, wrapPi and angleDifference", () => {
    expect(mod2pi(-0.5)).toBeCloseTo(2 * Math.PI - 0.5, 15);
    expect(mod2pi(2 * Math.PI)).toBe(0);
    expect(wrapPi(Math.PI)).toBe(Math.PI);
    expect(wrapPi(-Math.PI)).toBe(Math.PI);
    expect(angleDifference(0.1, 2 * Math.PI - 0.1)).toBeCloseTo(0.2, 12);
    expect(angleDifference(-3, 3)).toBeCloseTo(2 * Math.PI - 6, 12);
  });
});

/** Independent check: integrate heading' = d*k, x' = d*cos(heading), y' = d*sin(heading) with RK4. */
function integrateNumerically(start: Pose, k: number, d: number, length: number, steps: number): Pose {
  let { x, y, heading } = start;
  const h = length / steps;
  for (let i = 0; i < steps; i++) {
    // Heading is linear in u, so RK4 on x, y uses the exact heading at u, u + h/2, u + h.
    const a0 = heading;
    const a1 = heading + d * k * h * 0.5;
    const a2 = heading + d * k * h;
    x += (h / 6) * d * (Math.cos(a0) + 4 * Math.cos(a1) + Math.cos(a2));
    y += (h / 6) * d * (Math.sin(a0) + 4 * Math.sin(a1) + Math.sin(a2));
    heading = a2;
  }
  return { x, y, heading };
}

describe("segments in closed form", () => {
  test("lines and arcs (forward and reverse, tiny to large curvature) match a dense numeric integration", () => {
    const rand = rng(7);
    for (let i = 0; i < 200; i++) {
      const start: Pose = { x: rand() * 20 - 10, y: rand() * 20 - 10, heading: rand() * 7 - 3.5 };
      const d = rand() < 0.5 ? 1 : -1;
      const length = rand() * 12;
      const kinds = [0, 1e-9, -1e-7, 0.3, -0.3, 2, -4];
      const k = kinds[i % kinds.length];
      const seg = k === 0 ? lineSegment(start, length, d) : arcSegment(start, k, length, d);
      const numeric = integrateNumerically(start, k, d, length, 4000);
      expect(Math.hypot(seg.end.x - numeric.x, seg.end.y - numeric.y)).toBeLessThan(1e-9);
      expect(Math.abs(normalizeAngle(seg.end.heading - numeric.heading))).toBeLessThan(1e-11);
      // Intermediate points too.
      const u = rand() * length;
      const mid = poseAlong(seg, u);
      const midNumeric = integrateNumerically(start, k, d, u, 2000);
      expect(Math.hypot(mid.x - midNumeric.x, mid.y - midNumeric.y)).toBeLessThan(1e-9);
    }
  });

  test("the documented difference-of-sines form and the sign of an L arc driven in reverse", () => {
    // L with direction -1 (OMPL "L-"): curvature +1/r, heading decreases, center stays on the left.
    const r = 2;
    const start: Pose = { x: 1, y: 1, heading: 0.3 };
    const seg = arcSegment(start, 1 / r, 1.5, -1);
    expect(seg.end.heading).toBeCloseTo(0.3 - 1.5 / r, 14);
    const k = 1 / r;
    const h1 = 0.3 - 0.75;
    expect(seg.end.x).toBeCloseTo(1 + (Math.sin(h1) - Math.sin(0.3)) / k, 13);
    expect(seg.end.y).toBeCloseTo(1 - (Math.cos(h1) - Math.cos(0.3)) / k, 13);
    const center = arcCenter(seg);
    expect(center.x).toBeCloseTo(1 - 2 * Math.sin(0.3), 14);
    expect(center.y).toBeCloseTo(1 + 2 * Math.cos(0.3), 14);
    // Both ends are on the circle.
    expect(Math.hypot(seg.end.x - center.x, seg.end.y - center.y)).toBeCloseTo(r, 13);
    expect(() => arcCenter(lineSegment(start, 1, 1))).toThrow();
    expect(() => arcSegment(start, 0, 1, 1)).toThrow();
    expect(() => lineSegment(start, -1, 1)).toThrow();
  });

  test("pathLength, poseAtDistance, joinError", () => {
    const a = lineSegment({ x: 0, y: 0, heading: 0 }, 2, 1);
    const b = arcSegment(a.end, 1, Math.PI / 2, 1);
    const c = lineSegment(b.end, 3, -1);
    const path = [a, b, c];
    expect(pathLength(path)).toBeCloseTo(5 + Math.PI / 2, 14);
    expect(joinError(a, b).position).toBe(0);
    expect(joinError(b, c).heading).toBe(0);
    const p = poseAtDistance(path, 2 + Math.PI / 4);
    expect(p.x).toBeCloseTo(2 + Math.SQRT1_2, 12);
    expect(p.y).toBeCloseTo(1 - Math.SQRT1_2, 12);
    expect(p.heading).toBeCloseTo(Math.PI / 4, 12);
    // Reverse line after the quarter turn: heading pi/2, moving toward -y.
    const q = poseAtDistance(path, 2 + Math.PI / 2 + 1);
    expect(q.x).toBeCloseTo(3, 12);
    expect(q.y).toBeCloseTo(0, 12);
    expect(poseAtDistance(path, 100)).toEqual(c.end);
    expect(poseAtDistance(path, -1)).toEqual(a.start);
    const gap = lineSegment({ x: 1, y: 1, heading: 1 }, 1, 1);
    expect(joinError(a, gap).position).toBeCloseTo(Math.hypot(1, 1), 14);
    expect(joinError(a, gap).heading).toBeCloseTo(1, 14);
  });

  test("poseAtTime: constant speed without durations, per-segment durations and speeds with them", () => {
    const a = lineSegment({ x: 0, y: 0, heading: 0 }, 4, 1);
    const b = lineSegment(a.end, 4, 1);
    expect(poseAtTime([a, b], 3, 2).x).toBeCloseTo(6, 14);
    // Durations: a takes 1 s, b takes 4 s at constant speed (no speeds given).
    const timed: Segment[] = [{ ...a, duration: 1 }, { ...b, duration: 4 }];
    expect(poseAtTime(timed, 0.5).x).toBeCloseTo(2, 14);
    expect(poseAtTime(timed, 3).x).toBeCloseTo(4 + 2, 14);
    expect(poseAtTime(timed, 99).x).toBeCloseTo(8, 14);
    // Accelerating from 0 to 8 over 1 s covers 4 tiles; at 0.5 s it covered 0.5 * 8 * 0.25 / 2 = 1 tile.
    const accel: Segment[] = [{ ...a, duration: 1, startSpeed: 0, endSpeed: 8 }];
    expect(poseAtTime(accel, 0.5).x).toBeCloseTo(1, 12);
    expect(poseAtTime(accel, 1).x).toBeCloseTo(4, 12);
  });
});

describe("sweep legality", () => {
  const corridor = layerFrom([
    "##########",
    "..........",
    "##########",
  ]);

  test("discHitsBlocked is exact: touching an edge is legal, overlapping is not", () => {
    expect(discHitsBlocked(corridor, 5, 1.5, 0.5)).toBe(false);
    expect(discHitsBlocked(corridor, 5, 1.5, 0.5 + 1e-9)).toBe(true);
    expect(discHitsBlocked(corridor, 5, 1.49, 0.5)).toBe(true);
    // Off the map counts as blocked: the corridor's open ends.
    expect(discHitsBlocked(corridor, 0.4, 1.5, 0.45)).toBe(true);
    expect(discHitsBlocked(corridor, 0.5, 1.5, 0.5)).toBe(false);
  });

  test("a radius-0.5 disc grazing both walls of a 1-wide corridor is legal; 0.01 off center is not", () => {
    const along = lineSegment({ x: 1, y: 1.5, heading: 0 }, 8, 1);
    expect(segmentHitsBlocked(corridor, along, disc(0.5))).toBe(false);
    const back = lineSegment({ x: 9, y: 1.5, heading: 0 }, 8, -1);
    expect(segmentHitsBlocked(corridor, back, disc(0.5))).toBe(false);
    const off = lineSegment({ x: 1, y: 1.49, heading: 0 }, 8, 1);
    expect(segmentHitsBlocked(corridor, off, disc(0.5))).toBe(true);
    // A 1-wide rectangle driving straight down the corridor is legal too; 1.02 wide is not.
    expect(segmentHitsBlocked(corridor, along, rect(1, 0.8))).toBe(false);
    expect(segmentHitsBlocked(corridor, along, rect(1.02, 0.8))).toBe(true);
    // Running off the open end leaves the map.
    expect(segmentHitsBlocked(corridor, lineSegment({ x: 8, y: 1.5, heading: 0 }, 2, 1), disc(0.5))).toBe(
      true,
    );
  });

  test("a zero-size path cannot slip through a diagonal corner gap or run along a blocked edge", () => {
    const gap = layerFrom([
      ".#.",
      "#..",
      "...",
    ]);
    const diagonal = lineSegment({ x: 0.5, y: 0.5, heading: Math.PI / 4 }, Math.SQRT2, 1);
    expect(segmentHitsBlocked(gap, diagonal, disc(0))).toBe(true);
    const open = layerFrom(["...", "...", "..."]);
    expect(segmentHitsBlocked(open, diagonal, disc(0))).toBe(false);
    // Along the bottom edge of tile (1, 0) (the line y = 1): refused; 0.01 below the edge (inside): refused;
    // inside row 2 well clear: legal.
    expect(segmentHitsBlocked(gap, lineSegment({ x: 1, y: 1, heading: 0 }, 1.5, 1), disc(0))).toBe(true);
    expect(segmentHitsBlocked(gap, lineSegment({ x: 1.2, y: 2.5, heading: 0 }, 1.5, 1), disc(0))).toBe(false);
  });

  test("a rectangle rotating on an arc near a corner", () => {
    // One blocked tile at (4, 4); a 0.6-wide, 1.2-long rectangle drives half circles around it.
    const map = layerFrom([
      "........",
      "........",
      "........",
      "........",
      "....#...",
      "........",
      "........",
      "........",
    ]);
    const fp = rect(0.6, 1.2);
    // Circle centered on the blocked tile's center (4.5, 4.5), radius 2: the rectangle's inner side stays 1.7
    // from the center, clear of the tile (which reaches 0.71 from its center).
    const start: Pose = { x: 4.5, y: 2.5, heading: 0 };
    const arc = arcSegment(start, 0.5, Math.PI, 1);
    expect(segmentHitsBlocked(map, arc, fp)).toBe(false);
    // Radius 0.9 about the tile's center: the rectangle's inner side (0.6 from the center) cuts the tile's
    // corners (0.71 from the center) when the rectangle is diagonal.
    const tight = arcSegment({ x: 4.5, y: 3.6, heading: 0 }, 1 / 0.9, Math.PI, 1);
    expect(segmentHitsBlocked(map, tight, fp)).toBe(true);
    // Reversing along the same circle is the same region.
    expect(segmentHitsBlocked(map, arcSegment(arc.end, 0.5, Math.PI, -1), fp)).toBe(false);
    expect(pathHitsBlocked(map, [arc, tight], fp)).toBe(true);
    expect(pathHitsBlocked(map, [arc], fp)).toBe(false);
  });

  /** Brute force: does the footprint at this pose overlap a blocked square's interior? Points on its outline. */
  function denseFootprintHits(layer: PassLayer, p: Pose, fp: Footprint): boolean {
    const inBlocked = (x: number, y: number) => {
      const tx = Math.floor(x);
      const ty = Math.floor(y);
      // Strictly inside the square's interior.
      if (x === tx || y === ty) return false;
      return tx < 0 || ty < 0 || tx >= layer.width || ty >= layer.height ||
        layer.tileCost[ty * layer.width + tx] === 0;
    };
    if (fp.width === 0 && fp.length === 0) {
      const r = Math.max(fp.radius, 1e-6);
      if (inBlocked(p.x, p.y)) return true;
      for (let i = 0; i < 64; i++) {
        const a = (i / 64) * 2 * Math.PI;
        if (inBlocked(p.x + r * Math.cos(a), p.y + r * Math.sin(a))) return true;
      }
      return false;
    }
    const ux = Math.cos(p.heading);
    const uy = Math.sin(p.heading);
    const hl = fp.length / 2;
    const hw = fp.width / 2;
    const n = 24;
    for (let i = 0; i <= n; i++) {
      const f = (2 * i) / n - 1;
      const pts = [
        [f * hl, hw],
        [f * hl, -hw],
        [hl, f * hw],
        [-hl, f * hw],
      ];
      for (const [a, b] of pts) {
        if (inBlocked(p.x + a * ux - b * uy, p.y + a * uy + b * ux)) return true;
      }
    }
    return false;
  }

  test("randomized: whenever a 1/1000-tile dense sampler finds an overlap, segmentHitsBlocked says blocked", () => {
    const rand = rng(99);
    let denseHits = 0;
    let legalAccepted = 0;
    for (let trial = 0; trial < 160; trial++) {
      const rows: string[] = [];
      for (let y = 0; y < 8; y++) {
        let row = "";
        for (let x = 0; x < 8; x++) row += rand() < 0.12 ? "#" : ".";
        rows.push(row);
      }
      const layer = layerFrom(rows);
      const fp = trial % 3 === 0
        ? disc(rand() * 0.8)
        : trial % 3 === 1
        ? rect(0.2 + rand(), 0.2 + rand() * 1.4)
        : disc(0);
      const start: Pose = { x: 1.5 + rand() * 5, y: 1.5 + rand() * 5, heading: rand() * 6.3 - 3.15 };
      const length = 0.2 + rand() * 2.5;
      const dir = rand() < 0.5 ? 1 : -1;
      const k = trial % 4 === 0 ? 0 : (rand() < 0.5 ? -1 : 1) * (0.3 + rand() * 1.7);
      const seg = k === 0 ? lineSegment(start, length, dir) : arcSegment(start, k, length, dir);
      const steps = Math.ceil(length * 1000);
      let dense = false;
      for (let i = 0; i <= steps && !dense; i++) {
        dense = denseFootprintHits(layer, poseAlong(seg, (i / steps) * length), fp);
      }
      const fast = segmentHitsBlocked(layer, seg, fp);
      if (dense) {
        denseHits++;
        expect(fast, `trial ${trial}`).toBe(true);
      } else if (!fast) legalAccepted++;
      // sweptCells agrees with segmentHitsBlocked.
      const cells: number[] = [];
      const n = sweptCells(seg, fp, cells);
      let anyBlocked = false;
      for (let i = 0; i < n; i++) {
        const x = cells[2 * i];
        const y = cells[2 * i + 1];
        if (x < 0 || y < 0 || x >= 8 || y >= 8 || layer.tileCost[y * 8 + x] === 0) anyBlocked = true;
      }
      expect(anyBlocked).toBe(fast);
    }
    // The random cases exercise both outcomes, and the check is not trivially "always blocked".
    expect(denseHits).toBeGreaterThan(20);
    expect(legalAccepted).toBeGreaterThan(20);
  });

  test("randomized with real clearance: certified skips never accept an overlap nor refuse what the shapes accept", () => {
    // Sparse maps on 24x24 so clearance certifies long stretches; the same segments against the same tiles
    // with zero clearance give the uncertified answer (the plain conservative shapes).
    const rand = rng(4242);
    let denseHits = 0;
    let certifiedAccepts = 0;
    for (let trial = 0; trial < 400; trial++) {
      const rows: string[] = [];
      const density = 0.02 + 0.1 * rand();
      for (let y = 0; y < 24; y++) {
        let row = "";
        for (let x = 0; x < 24; x++) row += rand() < density ? "#" : ".";
        rows.push(row);
      }
      const plain = layerFrom(rows);
      const layer = { ...plain, clearanceCode: clearanceCodes(bruteClearance(24, 24, plain.tileCost, 16)) };
      const fp = trial % 3 === 0
        ? disc(rand() * 1.2)
        : trial % 3 === 1
        ? rect(0.2 + rand() * 1.2, 0.2 + rand() * 2.4)
        : disc(0);
      const start: Pose = { x: 3 + rand() * 18, y: 3 + rand() * 18, heading: rand() * 6.3 - 3.15 };
      const length = trial % 7 === 0 ? 0 : 0.2 + rand() * 10;
      const dir = rand() < 0.5 ? 1 : -1;
      const k = trial % 4 === 0 ? 0 : (rand() < 0.5 ? -1 : 1) * (0.15 + rand() * 1.5);
      const seg = k === 0 ? lineSegment(start, length, dir) : arcSegment(start, k, length, dir);
      const steps = Math.max(1, Math.ceil(length * 500));
      let dense = false;
      for (let i = 0; i <= steps && !dense; i++) {
        dense = denseFootprintHits(layer, poseAlong(seg, (i / steps) * length), fp);
      }
      const certified = segmentHitsBlocked(layer, seg, fp);
      const uncertified = segmentHitsBlocked(plain, seg, fp);
      if (dense) {
        denseHits++;
        expect(certified, `trial ${trial}`).toBe(true);
      } else if (!certified) certifiedAccepts++;
      // Certification only removes conservatism: blocked with clearance implies blocked without it.
      if (certified) expect(uncertified, `trial ${trial}`).toBe(true);
    }
    expect(denseHits).toBeGreaterThan(40);
    expect(certifiedAccepts).toBeGreaterThan(40);
  });

  test("sweptCells: unique cells relative to an origin, Int32Array output, cells along a straight line", () => {
    const seg = lineSegment({ x: 10.5, y: 20.5, heading: 0 }, 3, 1);
    const cells: number[] = [];
    const n = sweptCells(seg, disc(0.25), cells, 10, 20);
    expect(n).toBe(4);
    const pairs = new Set<string>();
    for (let i = 0; i < n; i++) pairs.add(`${cells[2 * i]},${cells[2 * i + 1]}`);
    expect([...pairs].sort()).toEqual(["0,0", "1,0", "2,0", "3,0"]);
    const typed = new Int32Array(8);
    expect(sweptCells(seg, disc(0.25), typed, 10, 20)).toBe(4);
    expect(Array.from(typed).sort()).toEqual([...cells].sort());
    expect(() => sweptCells(seg, disc(0.25), new Int32Array(4), 10, 20)).toThrow(RangeError);
    // The footprint at one pose: the exact single-pose check agrees with the cells it covers.
    const map = layerFrom(["...", ".#.", "..."]);
    expect(footprintHitsBlocked(map, 0.5, 0.5, 0, rect(1, 1))).toBe(false);
    expect(footprintHitsBlocked(map, 0.5, 0.5, Math.PI / 4, rect(1, 1))).toBe(true);
  });
});
