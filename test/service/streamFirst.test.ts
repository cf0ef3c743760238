/**
 * A stream's first-answer policy (src/service/streamFirst.ts): which requests get a drivable first answer and
 * which start with a directional prefix; the rest joined to a prefix is priced whole.
 */
import { describe, expect, test } from "vitest";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";
import {
  appendRest,
  PREFIX_DISTANCE,
  wantsDrivableFirst,
  wantsPrefix,
} from "../../src/service/streamFirst.ts";
import type { PlanRequest } from "../../src/service/requests.ts";
import type { PlanResult } from "../../src/service/planService.ts";
import { layerOf } from "../helpers/pathCheck.ts";
import { pathCost } from "../../src/motion/pathCost.ts";
import type { Segment } from "../../src/geometry/types.ts";

const req = (unit: string, planner: string, dx: number, keepToRoads = false, turnPenalty?: number) =>
  ({
    map: { id: "m" },
    unit: { ...BUILTIN_PROFILES[unit], ...(turnPenalty === undefined ? {} : { turnPenalty }) },
    start: { x: 0.5, y: 0.5, heading: 0 },
    goal: { x: 0.5 + dx, y: 0.5 },
    planner,
    options: { keepToRoads },
  }) as unknown as PlanRequest;

describe("streamFirst policy", () => {
  test("a turning unit asking a curve planner gets a drivable first answer; others the fast one", () => {
    for (const p of ["auto", "hybrid", "directional"]) {
      expect(wantsDrivableFirst(req("tank", p, 10))).toBe(true);
    }
    for (const p of ["grid", "smooth", "curved", "hierarchical"]) {
      expect(wantsDrivableFirst(req("tank", p, 10))).toBe(false);
    }
    expect(wantsDrivableFirst(req("soldier", "auto", 10))).toBe(false);
    expect(wantsDrivableFirst(req("tank", "hybrid", 10, true))).toBe(false); // keep_to_roads: the road hybrid
  });

  test("a long DIRECTIONAL (or AUTO with a turn penalty) plan starts with the prefix; AUTO/HYBRID try the fit", () => {
    expect(wantsPrefix(req("tank", "directional", PREFIX_DISTANCE))).toBe(true);
    expect(wantsPrefix(req("tank", "directional", PREFIX_DISTANCE - 1))).toBe(false);
    expect(wantsPrefix(req("tank", "auto", PREFIX_DISTANCE, false, 1))).toBe(true);
    expect(wantsPrefix(req("tank", "auto", PREFIX_DISTANCE))).toBe(false);
    expect(wantsPrefix(req("tank", "hybrid", PREFIX_DISTANCE))).toBe(false);
    expect(wantsPrefix(req("soldier", "directional", PREFIX_DISTANCE))).toBe(false);
  });

  test("appendRest: the prefix's and the rest's segments, figures summed, cost priced whole", () => {
    const layer = layerOf([".".repeat(40), ".".repeat(40), ".".repeat(40)]);
    const seg = (x: number, len: number): Segment =>
      ({
        start: { x, y: 1.5, heading: 0 },
        end: { x: x + len, y: 1.5, heading: 0 },
        length: len,
        curvature: 0,
        direction: 1,
      }) as unknown as Segment;
    const result = (segs: Segment[], len: number): PlanResult =>
      ({
        outcome: {
          segments: segs,
          length: len,
          duration: len / 2,
          expansions: 5,
          cost: null,
          waypoints: null,
        },
        mapVersion: { version: "v" },
      }) as unknown as PlanResult;
    const r = req("tank", "directional", 20);
    const whole = appendRest(r, result([seg(0.5, 10)], 10), result([seg(10.5, 20)], 20), layer);
    expect(whole.outcome.segments.map((s) => s.start.x)).toEqual([0.5, 10.5]);
    expect(whole.outcome.length).toBe(30);
    expect(whole.outcome.duration).toBe(15);
    expect(whole.outcome.expansions).toBe(10);
    expect(whole.outcome.cost).toEqual(pathCost(whole.outcome.segments, r.unit, layer));
  });
});
