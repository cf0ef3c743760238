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
} from "../../src/geometry/curves.ts";
import type { CurvePath } from "../../src/geometry/curves.ts";
import { normalizeAngle } from "../../src/geometry/angle.ts";
import { APPROX_ANGLE_ERROR, approxAtan2 } from "../../src/geometry/angleBounds.ts";
import { poseAlong } from "../../src/geometry/segment.ts";
import type { Pose } from "../../src/geometry/types.ts";

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
  return JSON.parse(readFileSync(new URL(`../../../shared/data/curves/${name}`, import.meta.url), "utf8"));
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

// ---------------------------------------------------------------------------------------------------------------
// Slow references for the optimized length functions: every word evaluated, nothing pruned, nothing shared. They
// use the same closed forms (and the same rounding guards) as the solvers, so the two must agree to rounding.

const TAU = 2 * Math.PI;

function refMod2pi(a: number): number {
  const m = a - TAU * Math.floor(a / TAU);
  return m >= TAU ? m - TAU : m < 0 ? m + TAU : m;
}

/** Dubins arc angle: in [0, 2*pi), with angles within 1e-10 of a full turn taken as 0 (as the solver does). */
function refArc(a: number): number {
  const m = refMod2pi(a);
  return m > TAU - 1e-10 ? 0 : m;
}

/** Shortest Dubins length by evaluating all six words, normalized problem (goal (x, y, phi), r = 1). */
function refDubinsNormalized(x: number, y: number, phi: number): number {
  const s = Math.sin(phi);
  const c = Math.cos(phi);
  const lengths: number[] = [];
  // LSL and RSR: outer tangents between same-side circles.
  const lx = x - s, ly = y + c - 1;
  const rx = x + s, ry = y - c + 1;
  {
    const t = refArc(Math.atan2(ly, lx));
    lengths.push(t + Math.sqrt(lx * lx + ly * ly) + refArc(phi - t));
  }
  {
    const t = refArc(-Math.atan2(ry, rx));
    lengths.push(t + Math.sqrt(rx * rx + ry * ry) + refArc(-phi - t));
  }
  // LSR and RSL: inner tangents, when the circles are at least 2 apart.
  for (const side of [1, -1]) {
    const vx = x + side * s;
    const vy = side * y - c - 1;
    let p2 = vx * vx + vy * vy - 4;
    if (p2 < 0 && p2 > -1e-13 * (8 + p2)) p2 = 0;
    if (p2 < 0) continue;
    const p = Math.sqrt(p2);
    const t = refArc(Math.atan2(vy * p + 2 * vx, vx * p - 2 * vy));
    lengths.push(t + p + refArc(t - side * phi));
  }
  // LRL and RLR: three arcs, when the outer circles are at most 4 apart.
  for (const side of [1, -1]) {
    const vx = side > 0 ? lx : rx;
    const vy = side > 0 ? ly : ry;
    let cosine = 1 - (vx * vx + vy * vy) / 8;
    if (cosine < -1 && cosine > -1 - 1e-12) cosine = -1;
    if (cosine < -1) continue;
    // The middle arc is in [pi, 2*pi]; it is never snapped to 0 (a full loop is not an empty turn).
    const p = TAU - Math.acos(Math.min(1, cosine));
    const angle = Math.atan2(vy, vx);
    const t = refArc(side * angle + 0.5 * p);
    lengths.push(t + p + refArc(side * phi - t + p));
  }
  return Math.min(...lengths);
}

function refWrapPi(a: number): number {
  const m = a - TAU * Math.floor(a / TAU);
  return m > Math.PI ? m - TAU : m <= -Math.PI ? m + TAU : m;
}

/** Sign tolerance of the Reeds-Shepp base formulas (as in the solver). */
const RS_ZERO = 10 * Number.EPSILON;

/**
 * The Reeds-Shepp base formulas (Reeds & Shepp 1990, section 8) without pruning: each returns the sum of its
 * absolute piece lengths or Infinity when the word does not apply.
 */
const refBase: ((x: number, y: number, phi: number) => number)[] = [
  // 8.1 L+S+L+
  (x, y, phi) => {
    const xi = x - Math.sin(phi), eta = y - 1 + Math.cos(phi);
    const t = Math.atan2(eta, xi);
    const v = refWrapPi(phi - t);
    return t < -RS_ZERO || v < -RS_ZERO ? Infinity : t + Math.sqrt(xi * xi + eta * eta) + v;
  },
  // 8.2 L+S+R+
  (x, y, phi) => {
    const xi = x + Math.sin(phi), eta = y - 1 - Math.cos(phi);
    const rho2 = xi * xi + eta * eta;
    if (rho2 < 4) return Infinity;
    const u = Math.sqrt(rho2 - 4);
    const t = refWrapPi(Math.atan2(eta * u + 2 * xi, xi * u - 2 * eta));
    const v = refWrapPi(t - phi);
    return t < -RS_ZERO || v < -RS_ZERO ? Infinity : t + u + v;
  },
  // 8.3 L+R-L
  (x, y, phi) => {
    const xi = x - Math.sin(phi), eta = y - 1 + Math.cos(phi);
    const rho = Math.sqrt(xi * xi + eta * eta);
    if (rho > 4) return Infinity;
    const u = -2 * Math.asin(0.25 * rho);
    const t = refWrapPi(Math.atan2(eta, xi) + 0.5 * u + Math.PI);
    if (t < -RS_ZERO || u > RS_ZERO) return Infinity;
    return Math.abs(t) + Math.abs(u) + Math.abs(refWrapPi(phi - t + u));
  },
  // 8.7 L+R+L-R-
  (x, y, phi) => {
    const xi = x + Math.sin(phi), eta = y - 1 - Math.cos(phi);
    const rho = 0.25 * (2 + Math.sqrt(xi * xi + eta * eta));
    if (rho > 1) return Infinity;
    const u = Math.acos(rho);
    const [t, v] = refTauOmega(u, -u, xi, eta, phi);
    return t < -RS_ZERO || v > RS_ZERO ? Infinity : Math.abs(t) + 2 * Math.abs(u) + Math.abs(v);
  },
  // 8.8 L+R-L-R+
  (x, y, phi) => {
    const xi = x + Math.sin(phi), eta = y - 1 - Math.cos(phi);
    const rho = (20 - xi * xi - eta * eta) / 16;
    if (rho < 0 || rho > 1) return Infinity;
    const u = -Math.acos(rho);
    if (u < -Math.PI / 2) return Infinity;
    const [t, v] = refTauOmega(u, u, xi, eta, phi);
    return t < -RS_ZERO || v < -RS_ZERO ? Infinity : Math.abs(t) + 2 * Math.abs(u) + Math.abs(v);
  },
  // 8.9 L+R-(pi/2)S-L-
  (x, y, phi) => {
    const xi = x - Math.sin(phi), eta = y - 1 + Math.cos(phi);
    const rho2 = xi * xi + eta * eta;
    if (rho2 < 4) return Infinity;
    const r = Math.sqrt(rho2 - 4);
    const u = 2 - r;
    const t = refWrapPi(Math.atan2(xi * r - 2 * eta, -2 * xi - eta * r));
    const v = refWrapPi(phi - Math.PI / 2 - t);
    if (t < -RS_ZERO || u > RS_ZERO || v > RS_ZERO) return Infinity;
    return Math.abs(t) + Math.PI / 2 + Math.abs(u) + Math.abs(v);
  },
  // 8.10 L+R-(pi/2)S-R-
  (x, y, phi) => {
    const xi = x + Math.sin(phi), eta = y - 1 - Math.cos(phi);
    const rho2 = xi * xi + eta * eta;
    if (rho2 < 4) return Infinity;
    const u = 2 - Math.sqrt(rho2);
    const t = Math.atan2(xi, -eta);
    const v = refWrapPi(t + Math.PI / 2 - phi);
    if (t < -RS_ZERO || u > RS_ZERO || v > RS_ZERO) return Infinity;
    return Math.abs(t) + Math.PI / 2 + Math.abs(u) + Math.abs(v);
  },
  // 8.11 L+R-(pi/2)S-L-(pi/2)R+
  (x, y, phi) => {
    const xi = x + Math.sin(phi), eta = y - 1 - Math.cos(phi);
    const rho2 = xi * xi + eta * eta;
    if (rho2 < 4) return Infinity;
    const u = 4 - Math.sqrt(rho2 - 4);
    if (u > RS_ZERO) return Infinity;
    const t = refWrapPi(Math.atan2((4 - u) * xi - 2 * eta, -2 * xi + (u - 4) * eta));
    const v = refWrapPi(t - phi);
    return t < -RS_ZERO || v < -RS_ZERO ? Infinity : Math.abs(t) + Math.PI + Math.abs(u) + Math.abs(v);
  },
];

function refTauOmega(u: number, v: number, xi: number, eta: number, phi: number): [number, number] {
  const delta = refWrapPi(u - v);
  const a = Math.sin(u) - Math.sin(delta);
  const b = Math.cos(u) - Math.cos(delta) - 1;
  const t1 = Math.atan2(eta * a - xi * b, xi * a + eta * b);
  const t2 = 2 * (Math.cos(delta) - Math.cos(v) - Math.cos(u)) + 3;
  const tau = t2 < 0 ? refWrapPi(t1 + Math.PI) : refWrapPi(t1);
  return [tau, refWrapPi(tau - u + v - phi)];
}

/** Shortest Reeds-Shepp length: every base formula under timeflip, reflect and (CCC, CCSC) backwards. */
function refReedsSheppNormalized(x: number, y: number, phi: number): number {
  const xb = x * Math.cos(phi) + y * Math.sin(phi);
  const yb = x * Math.sin(phi) - y * Math.cos(phi);
  let best = Infinity;
  refBase.forEach((base, index) => {
    const backwards = index === 2 || index === 5 || index === 6;
    for (const [gx, gy] of backwards ? [[x, y], [xb, yb]] : [[x, y]]) {
      best = Math.min(best, base(gx, gy, phi), base(-gx, gy, -phi), base(gx, -gy, -phi), base(-gx, -gy, phi));
    }
  });
  return best;
}

/** Normalizes a pose pair to the start's frame with lengths / r (as both solvers do) and solves with `solve`. */
function refLength(
  solve: (x: number, y: number, phi: number) => number,
  wrap: (a: number) => number,
  start: Pose,
  goal: Pose,
  r: number,
): number {
  const dx = (goal.x - start.x) / r;
  const dy = (goal.y - start.y) / r;
  const c = Math.cos(start.heading);
  const s = Math.sin(start.heading);
  return r * solve(dx * c + dy * s, dy * c - dx * s, wrap(goal.heading - start.heading));
}

describe("optimized lengths equal an all-words evaluation", () => {
  /** 20,000 pose pairs: uniform ones at several radii and near-degenerate ones (circle contacts, d = 2, 4). */
  function randomPairs(): [Pose, Pose, number][] {
    let seed = 987654321;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const radii = [0.25, 1, 2.5, 7];
    const pairs: [Pose, Pose, number][] = [];
    for (let i = 0; i < 20_000; i++) {
      const r = radii[i % radii.length];
      const start: Pose = { x: rand() * 20 - 10, y: rand() * 20 - 10, heading: rand() * 8 - 4 };
      const kind = i % 5;
      let goal: Pose;
      if (kind < 2) {
        goal = { x: rand() * 20 - 10, y: rand() * 20 - 10, heading: rand() * 8 - 4 };
      } else {
        // Goal at a chosen distance (0, 2r or 4r, slightly perturbed) and heading change (0, +-pi/2, pi, tiny).
        const dist = [0, 2, 4, 1e-9, 2 * Math.SQRT2][Math.floor(rand() * 5)] * r *
          (1 + (rand() - 0.5) * 1e-12);
        const bearing = start.heading +
          [0, Math.PI / 2, -Math.PI / 2, Math.PI, rand() * 7][Math.floor(rand() * 5)];
        const turn = [0, Math.PI / 2, -Math.PI / 2, Math.PI, 1e-12, rand() * 7][Math.floor(rand() * 6)];
        goal = {
          x: start.x + dist * Math.cos(bearing),
          y: start.y + dist * Math.sin(bearing),
          heading: start.heading + turn,
        };
      }
      pairs.push([start, goal, r]);
    }
    return pairs;
  }

  const pairs = randomPairs();
  const cases = [
    { name: "dubins", solve: refDubinsNormalized, wrap: (a: number) => a, fast: dubinsLength },
    { name: "reeds-shepp", solve: refReedsSheppNormalized, wrap: refWrapPi, fast: reedsSheppLength },
  ];
  for (const { name, solve, wrap, fast } of cases) {
    test(`${name}: 20,000 random pose pairs within 1e-12 relative`, () => {
      let worst = 0;
      for (const [start, goal, r] of pairs) {
        const expected = refLength(solve, wrap, start, goal, r);
        const actual = fast(start, goal, r);
        expect(Number.isFinite(expected)).toBe(true);
        // Relative error; lengths below the radius are compared at the radius's scale, since rounding in the
        // normalization alone moves a near-zero length by about 1e-16 * r.
        const error = Math.abs(actual - expected) / Math.max(expected, r);
        if (!(error <= 1e-12)) {
          expect({ start, goal, r, actual, expected }).toBeUndefined();
        }
        worst = Math.max(worst, error);
      }
      expect(worst).toBeLessThanOrEqual(1e-12);
    });
  }
});

describe("pruning helpers and tie-breaking", () => {
  test("approxAtan2 stays within APPROX_ANGLE_ERROR of Math.atan2 (modulo 2*pi) at every scale and on the axes", () => {
    let worst = 0;
    const check = (y: number, x: number) => {
      const error = Math.abs(normalizeAngle(approxAtan2(y, x) - Math.atan2(y, x)));
      worst = Math.max(worst, error);
      if (!(error <= APPROX_ANGLE_ERROR)) expect({ y, x, error }).toBeUndefined();
    };
    for (const scale of [1e-300, 1e-9, 1, 3.7, 1e9, 1e300]) {
      for (let i = 0; i < 20_000; i++) {
        const angle = (i / 20_000) * 2 * Math.PI - Math.PI;
        check(scale * Math.sin(angle), scale * Math.cos(angle));
      }
      for (const [y, x] of [[0, 1], [0, -1], [1, 0], [-1, 0], [1, 1], [-1, 1], [1, -1], [-1, -1]]) {
        check(scale * y, scale * x);
      }
    }
    // Signed zeros: -pi and pi are the same angle.
    check(-0, -1);
    check(0, -1);
    expect(approxAtan2(0, 0)).toBe(0);
    expect(worst).toBeGreaterThan(0); // a real approximation, not Math.atan2
  });

  test("ties go to the same word whatever the pruning order: a goal exactly straight ahead is LSL / L+S+L+", () => {
    // Heading 0 and distances that are exact multiples of r keep the normalization exact, so all four CSC
    // words (and their Reeds-Shepp variants) have exactly the same length.
    for (const r of [0.5, 1, 2.5, 4]) {
      for (const d of [0.5 * r, 3 * r, 17 * r]) {
        const start: Pose = { x: 0, y: -2, heading: 0 };
        const goal: Pose = { x: d, y: -2, heading: 0 };
        const dubins = dubinsShortest(start, goal, r);
        expect(dubins.word).toBe("LSL");
        expect(dubins.length).toBe(d);
        const rs = reedsSheppShortest(start, goal, r);
        expect(rs.word).toBe("L+S+L+");
        expect(rs.length).toBe(d);
        expect(rs.segments.length).toBe(1);
      }
    }
  });
});

describe("optimized lengths equal an all-words evaluation on the benchmark's pose distribution", () => {
  // As bench/curves.ts: uniform in [-10, 10]^2, headings in [-pi, pi), radii cycled over the reference data's.
  const radii = [0.5, 1, 2.5, 4];
  let state = 20240601;
  const unit = () => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state / 4294967296;
  };
  const pairs: [Pose, Pose, number][] = [];
  for (let i = 0; i < 10_000; i++) {
    const start: Pose = { x: unit() * 20 - 10, y: unit() * 20 - 10, heading: (unit() * 2 - 1) * Math.PI };
    const goal: Pose = { x: unit() * 20 - 10, y: unit() * 20 - 10, heading: (unit() * 2 - 1) * Math.PI };
    pairs.push([start, goal, radii[i % radii.length]]);
  }
  const cases = [
    { name: "dubins", solve: refDubinsNormalized, wrap: (a: number) => a, fast: dubinsLength },
    { name: "reeds-shepp", solve: refReedsSheppNormalized, wrap: refWrapPi, fast: reedsSheppLength },
  ];
  for (const { name, solve, wrap, fast } of cases) {
    test(`${name}: 10,000 pairs within 1e-12 relative, and the path's word reaches the goal`, () => {
      let worst = 0;
      for (const [start, goal, r] of pairs) {
        const expected = refLength(solve, wrap, start, goal, r);
        const error = Math.abs(fast(start, goal, r) - expected) / Math.max(expected, r);
        worst = Math.max(worst, error);
      }
      expect(worst).toBeLessThanOrEqual(1e-12);
      for (const [start, goal, r] of pairs.slice(0, 500)) {
        const path = name === "dubins" ? dubinsShortest(start, goal, r) : reedsSheppShortest(start, goal, r);
        expect(endError(integrate(start, path), goal, r)).toBeLessThanOrEqual(endTolerance(start, goal, r));
      }
    });
  }
});
