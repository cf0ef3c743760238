import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import {
  arcThenLine,
  arcThenLineSide,
  dubinsLength,
  dubinsLengthCoords,
  dubinsShortest,
  reedsSheppLength,
  reedsSheppLengthCoords,
  reedsSheppShortest,
} from "../src/geometry/curves.ts";
import type { CurvePath } from "../src/geometry/curves.ts";
import { normalizeAngle } from "../src/geometry/angle.ts";
import { poseAlong } from "../src/geometry/segment.ts";
import type { Pose } from "../src/geometry/types.ts";

interface RefCase {
  tag: string;
  start: { x: number; y: number; theta: number };
  goal: { x: number; y: number; theta: number };
  radius: number;
  length: number;
  word: string;
  segments: { kind: string; dir: number; length: number }[];
}

function loadCases(name: string): RefCase[] {
  return JSON.parse(readFileSync(new URL(`../../shared/data/curves/${name}`, import.meta.url), "utf8"));
}

const pose = (p: { x: number; y: number; theta: number }): Pose => ({ x: p.x, y: p.y, heading: p.theta });

/** Integrates the path's segments with poseAlong, each from the previous computed end (not the stored start). */
function integrate(start: Pose, path: CurvePath): Pose {
  let current: Pose = { ...start };
  for (const seg of path.segments) {
    current = poseAlong({ ...seg, start: current }, seg.length);
  }
  return current;
}

function endError(end: Pose, goal: Pose, r: number): number {
  return Math.max(
    Math.hypot(end.x - goal.x, end.y - goal.y),
    Math.abs(normalizeAngle(end.heading - goal.heading)) * r,
  );
}

function endTolerance(start: Pose, goal: Pose, r: number): number {
  return 1e-9 * Math.max(1, r, Math.abs(start.x), Math.abs(start.y), Math.abs(goal.x), Math.abs(goal.y));
}

function expectLengthClose(actual: number, expected: number): void {
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(Math.max(1e-9, 1e-6 * Math.abs(expected)));
}

const solvers = [
  { file: "dubins.json", shortest: dubinsShortest, length: dubinsLength, coords: dubinsLengthCoords },
  {
    file: "reeds_shepp.json",
    shortest: reedsSheppShortest,
    length: reedsSheppLength,
    coords: reedsSheppLengthCoords,
  },
];

for (const solver of solvers) {
  describe(`reference ${solver.file}`, () => {
    const cases = loadCases(solver.file);
    test("has the 400 reference cases", () => {
      expect(cases.length).toBe(400);
    });
    test.each(cases.map((c, i) => [i, c.tag, c] as const))("case %i (%s)", (_i, _tag, c) => {
      const start = pose(c.start);
      const goal = pose(c.goal);
      const path = solver.shortest(start, goal, c.radius);
      expectLengthClose(path.length, c.length);
      // The segments integrate to the goal.
      expect(endError(integrate(start, path), goal, c.radius)).toBeLessThanOrEqual(
        endTolerance(start, goal, c.radius),
      );
      // The segment list is consistent with the reported length and has no zero-length pieces.
      let sum = 0;
      for (const seg of path.segments) {
        expect(seg.length).toBeGreaterThanOrEqual(1e-12 * c.radius);
        sum += seg.length;
      }
      expect(Math.abs(sum - path.length)).toBeLessThanOrEqual(1e-9 * Math.max(1, c.radius));
      // The fast length functions agree with the full solver.
      expect(solver.length(start, goal, c.radius)).toBe(path.length);
      expect(solver.coords(start.x, start.y, start.heading, goal.x, goal.y, goal.heading, c.radius)).toBe(
        path.length,
      );
    });
  });
}

describe("word format", () => {
  test("Dubins words are three letters of LSR; Reeds-Shepp words carry a sign per letter", () => {
    const d = dubinsShortest({ x: 0, y: 0, heading: 0 }, { x: 5, y: 3, heading: 2 }, 1);
    expect(d.word).toMatch(/^(LSL|RSR|LSR|RSL|RLR|LRL)$/);
    const rs = reedsSheppShortest({ x: 0, y: 0, heading: 0 }, { x: -0.3, y: 0.8, heading: 2.5 }, 1);
    expect(rs.word).toMatch(/^([LSR][+-]){3,5}$/);
    // Each segment's direction matches the sign of its letter in order (no zero-length pieces here).
    expect(rs.segments.length).toBe(rs.word.length / 2);
    rs.segments.forEach((seg, i) => expect(seg.direction).toBe(rs.word[2 * i + 1] === "+" ? 1 : -1));
  });

  test("cusps are consecutive segments with opposite directions", () => {
    // A goal right beside the start facing the same way needs reversing with Reeds-Shepp.
    const rs = reedsSheppShortest({ x: 0, y: 0, heading: 0 }, { x: 0, y: 0.5, heading: 0 }, 1);
    let cusps = 0;
    for (let i = 1; i < rs.segments.length; i++) {
      if (rs.segments[i].direction !== rs.segments[i - 1].direction) cusps++;
    }
    expect(cusps).toBeGreaterThanOrEqual(1);
    expect(rs.length).toBeLessThan(
      dubinsShortest({ x: 0, y: 0, heading: 0 }, { x: 0, y: 0.5, heading: 0 }, 1).length,
    );
  });
});

describe("degenerate inputs", () => {
  const r = 2;
  const start: Pose = { x: 3, y: -1, heading: 0.7 };
  const all = [
    ["dubins", dubinsShortest],
    ["reeds-shepp", reedsSheppShortest],
  ] as const;

  for (const [name, solve] of all) {
    test(`${name}: identical poses give length 0 and no segments`, () => {
      const p = solve(start, { ...start }, r);
      expect(p.length).toBe(0);
      expect(p.segments).toEqual([]);
    });

    test(`${name}: headings outside [-pi, pi) give the same answer as wrapped ones`, () => {
      const goal: Pose = { x: 7, y: 2, heading: -2.2 };
      const base = solve(start, goal, r);
      const shifted = solve(
        { ...start, heading: start.heading + 6 * Math.PI },
        { ...goal, heading: goal.heading - 4 * Math.PI },
        r,
      );
      expect(Math.abs(shifted.length - base.length)).toBeLessThan(1e-9);
      expect(endError(integrate(start, shifted), goal, r)).toBeLessThan(1e-9 * 7);
      // The emitted segments use wrapped headings.
      for (const seg of shifted.segments) {
        expect(seg.start.heading).toBeGreaterThanOrEqual(-Math.PI);
        expect(seg.start.heading).toBeLessThan(Math.PI);
      }
    });

    test(`${name}: goal on the turning circle ends at the goal with a single arc length`, () => {
      // A quarter turn left on the circle of radius r: the exact answer is one arc of length r*pi/2.
      const s: Pose = { x: 0, y: 0, heading: 0 };
      const g: Pose = { x: r, y: r, heading: Math.PI / 2 };
      const p = solve(s, g, r);
      expectLengthClose(p.length, (r * Math.PI) / 2);
      expect(p.segments.length).toBe(1);
      expect(p.segments[0].curvature).toBeCloseTo(1 / r, 12);
      expect(endError(integrate(s, p), g, r)).toBeLessThan(1e-9 * r);
    });

    test(`${name}: many rounded near-degenerate goals give finite lengths that reach the goal`, () => {
      // Goals built in floating point that push acos/asin/sqrt arguments to their limits.
      const cases: [Pose, Pose][] = [];
      for (let i = 0; i < 50; i++) {
        const h = -Math.PI + (i * 2 * Math.PI) / 50 + 0.1;
        const s: Pose = { x: 1.1 * i, y: -0.3 * i, heading: h };
        const left = h + Math.PI / 2;
        cases.push([s, {
          x: s.x + 2 * r * Math.cos(left),
          y: s.y + 2 * r * Math.sin(left),
          heading: h + Math.PI,
        }]);
        cases.push([s, { x: s.x + 4 * r * Math.cos(h), y: s.y + 4 * r * Math.sin(h), heading: h }]);
        cases.push([s, { x: s.x - 4 * r * Math.cos(h), y: s.y - 4 * r * Math.sin(h), heading: h }]);
        cases.push([s, { x: s.x + 1e-13, y: s.y - 1e-13, heading: h + 1e-13 }]);
        cases.push([s, { x: s.x, y: s.y, heading: h + Math.PI }]);
      }
      for (const [s, g] of cases) {
        const p = solve(s, g, r);
        expect(Number.isFinite(p.length)).toBe(true);
        expect(endError(integrate(s, p), g, r)).toBeLessThan(
          1e-8 * Math.max(1, Math.abs(g.x), Math.abs(g.y), r),
        );
      }
    });
  }

  test("dubins: a goal straight behind needs two half circles while Reeds-Shepp simply reverses", () => {
    const s: Pose = { x: 0, y: 0, heading: 0 };
    const g: Pose = { x: -3, y: 0, heading: 0 };
    const d = dubinsShortest(s, g, 1);
    expectLengthClose(d.length, 2 * Math.PI + 3);
    const rs = reedsSheppShortest(s, g, 1);
    expectLengthClose(rs.length, 3);
    expect(rs.segments.length).toBe(1);
    expect(rs.segments[0].direction).toBe(-1);
    expect(rs.segments[0].curvature).toBe(0);
  });

  test("a non-positive turning radius is refused", () => {
    expect(() => dubinsShortest({ x: 0, y: 0, heading: 0 }, { x: 1, y: 0, heading: 0 }, 0)).toThrow(
      RangeError,
    );
    expect(() => reedsSheppShortest({ x: 0, y: 0, heading: 0 }, { x: 1, y: 0, heading: 0 }, -1)).toThrow(
      RangeError,
    );
  });
});

describe("arcThenLine", () => {
  function checkPath(start: Pose, gx: number, gy: number, r: number): CurvePath {
    const p = arcThenLine(start, gx, gy, r);
    const end = integrate(start, p);
    const scale = Math.max(1, r, Math.abs(gx), Math.abs(gy));
    expect(Math.hypot(end.x - gx, end.y - gy)).toBeLessThan(1e-9 * scale);
    expect(p.length).toBeGreaterThanOrEqual(Math.hypot(gx - start.x, gy - start.y) - 1e-12 * scale);
    expect(Number.isFinite(p.length)).toBe(true);
    const last = p.segments[p.segments.length - 1];
    if (last !== undefined && last.curvature === 0) {
      // The final heading is the line's direction toward the goal.
      const toGoal = Math.atan2(gy - last.start.y, gx - last.start.x);
      expect(Math.abs(normalizeAngle(end.heading - toGoal))).toBeLessThan(1e-9);
      expect(Math.abs(normalizeAngle(end.heading - last.start.heading))).toBeLessThan(1e-12);
    }
    // The chosen side is no longer than the other side (when the other exists).
    const left = arcThenLineSide(start, gx, gy, r, 1);
    const right = arcThenLineSide(start, gx, gy, r, -1);
    expect(left !== null || right !== null).toBe(true);
    for (const side of [left, right]) if (side !== null) expect(p.length).toBeLessThanOrEqual(side.length);
    return p;
  }

  test("random poses and points", () => {
    let seed = 12345;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    let leftChosen = 0;
    let rightChosen = 0;
    for (let i = 0; i < 500; i++) {
      const r = [0.5, 1, 2.5, 4][i % 4];
      const start: Pose = { x: rand() * 20 - 10, y: rand() * 20 - 10, heading: rand() * 8 - 4 };
      const p = checkPath(start, rand() * 20 - 10, rand() * 20 - 10, r);
      if (p.word === "LS") leftChosen++;
      else rightChosen++;
    }
    expect(leftChosen).toBeGreaterThan(50);
    expect(rightChosen).toBeGreaterThan(50);
  });

  test("known geometry: a point to the left at (r, r) is a quarter arc; straight ahead is a line", () => {
    const r = 2;
    const start: Pose = { x: 0, y: 0, heading: 0 };
    const q = checkPath(start, r, r, r);
    expect(q.word).toBe("LS");
    expectLengthClose(q.length, (Math.PI / 2) * r);
    expect(q.segments.length).toBe(1);
    const ahead = checkPath(start, 10, 0, r);
    expect(ahead.segments.length).toBe(1);
    expect(ahead.segments[0].curvature).toBe(0);
    expectLengthClose(ahead.length, 10);
    // Tangent from the left circle: center (0, r), point (2r, r) -> tangent length sqrt(4r^2 - r^2).
    const t = checkPath(start, 2 * r, r, r);
    expect(t.word).toBe("LS");
    // The line leaves at heading asin(r/h) = pi/6.
    expectLengthClose(t.length, r * Math.asin(0.5) + Math.sqrt(3) * r);
  });

  test("a destination inside the left circle goes around on the right; the start itself is an empty path", () => {
    const r = 2;
    const start: Pose = { x: 0, y: 0, heading: 0 };
    expect(arcThenLineSide(start, 0.2, 1, r, 1)).toBeNull();
    const p = checkPath(start, 0.2, 1, r);
    expect(p.word).toBe("RS");
    expect(p.length).toBeGreaterThan(Math.PI * r);
    const same = arcThenLine(start, 0, 0, r);
    expect(same.length).toBe(0);
    expect(same.segments).toEqual([]);
    // Directly behind, at distance below and above 2r: finite, reaches it.
    checkPath(start, -1, 0, r);
    checkPath(start, -10, 0, r);
  });
});
