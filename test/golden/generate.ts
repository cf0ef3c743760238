/**
 * Generates the golden segment vectors (test/golden/segments.json): a few dozen paths from the curve solvers,
 * in the proto's JSON field names, for clients to check their segment followers against; a few of them timed
 * for built-in units (speeds and durations, speed linear in time within a segment, with poses at given times). Run:
 * `deno run -A test/golden/generate.ts` (writes the file). A test regenerates it in memory and compares.
 *
 * @module
 */

import { arcThenLine, dubinsShortest, reedsSheppShortest } from "../../src/geometry/curves.ts";
import type { CurvePath } from "../../src/geometry/curves.ts";
import type { Pose, Segment } from "../../src/geometry/types.ts";
import { lineSegment, poseAtTime } from "../../src/geometry/segment.ts";
import { applySpeedProfile, splitAtSpeedPhases } from "../../src/motion/speedProfile.ts";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";

/** One golden path as written to the JSON file. */
export interface GoldenPath {
  /** What produced it. */
  name: string;
  /** "dubins", "reeds_shepp" or "arc_then_line". */
  solver: string;
  /** Turning radius. */
  radius: number;
  /** The solver's word. */
  word: string;
  /** The solver's total length. */
  length: number;
  /** The start pose. */
  start: Pose;
  /** The pose the path must end at (for arc_then_line the heading is the final line's, not checked). */
  goal: Pose;
  /** True when only the goal position is meaningful. */
  ignoreGoalHeading: boolean;
  /** The segments in proto JSON form (timed paths also carry start_speed, end_speed and duration). */
  segments: {
    kind: "SEGMENT_KIND_LINE" | "SEGMENT_KIND_ARC";
    start: Pose;
    end: Pose;
    length: number;
    curvature: number;
    direction: number;
    start_speed?: number;
    end_speed?: number;
    duration?: number;
  }[];
  /** Timed paths: the built-in profile whose speed limits timed it. */
  unit?: string;
  /** Timed paths: that unit's max_speed. */
  maxSpeed?: number;
  /** Timed paths: where a unit following the path by the clock is, t seconds after its start. */
  timeSamples?: { t: number; x: number; y: number; heading: number }[];
}

function wire(seg: Segment): GoldenPath["segments"][number] {
  const out: GoldenPath["segments"][number] = {
    kind: seg.curvature === 0 ? "SEGMENT_KIND_LINE" : "SEGMENT_KIND_ARC",
    start: { x: seg.start.x, y: seg.start.y, heading: seg.start.heading },
    end: { x: seg.end.x, y: seg.end.y, heading: seg.end.heading },
    length: seg.length,
    curvature: seg.curvature,
    direction: seg.direction,
  };
  if (seg.duration !== undefined) {
    out.start_speed = seg.startSpeed;
    out.end_speed = seg.endSpeed;
    out.duration = seg.duration;
  }
  return out;
}

/**
 * A golden path timed for a built-in unit as the server times answers: speed profile, then split at the speed
 * phases (speed linear in time within every segment), with poses at nine times along it.
 */
function timed(base: GoldenPath, unitName: "tank" | "jeep" | "truck", segments: Segment[]): GoldenPath {
  const unit = BUILTIN_PROFILES[unitName];
  const segs = segments.map((s) => ({ ...s }));
  const total = applySpeedProfile(segs, unit);
  const pieces = splitAtSpeedPhases(segs, unit);
  const timeSamples = [];
  for (let k = 0; k <= 8; k++) {
    const t = (total * k) / 8;
    const p = poseAtTime(pieces, t);
    timeSamples.push({ t, x: p.x, y: p.y, heading: p.heading });
  }
  return {
    ...base,
    name: `timed_${unitName}_${base.name}`,
    segments: pieces.map(wire),
    unit: unitName,
    maxSpeed: unit.maxSpeed,
    timeSamples,
  };
}

/** A small deterministic generator (the golden file must not depend on Math.random). */
function lcg(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296;
  };
}

/** Builds the golden paths. */
export function goldenPaths(): GoldenPath[] {
  const out: GoldenPath[] = [];
  const solved = new Map<string, Segment[]>();
  const add = (name: string, solver: string, r: number, start: Pose, goal: Pose, path: CurvePath) => {
    const ignore = solver === "arc_then_line";
    const last = path.segments[path.segments.length - 1];
    solved.set(name, path.segments);
    out.push({
      name,
      solver,
      radius: r,
      word: path.word,
      length: path.length,
      start,
      goal: ignore ? { x: goal.x, y: goal.y, heading: last ? last.end.heading : start.heading } : goal,
      ignoreGoalHeading: ignore,
      segments: path.segments.map(wire),
    });
  };
  const rand = lcg(20240611);
  const radii = [0.5, 1, 2.5, 4];
  for (let i = 0; i < 12; i++) {
    const r = radii[i % 4];
    const round = (v: number) => Math.round(v * 1000) / 1000; // short, exactly reproducible inputs
    const start: Pose = {
      x: round(rand() * 20 - 10),
      y: round(rand() * 20 - 10),
      heading: round(rand() * 6.2 - 3.1),
    };
    const goal: Pose = {
      x: round(rand() * 20 - 10),
      y: round(rand() * 20 - 10),
      heading: round(rand() * 6.2 - 3.1),
    };
    add(`dubins_random_${i}`, "dubins", r, start, goal, dubinsShortest(start, goal, r));
    add(`reeds_shepp_random_${i}`, "reeds_shepp", r, start, goal, reedsSheppShortest(start, goal, r));
    add(`arc_then_line_random_${i}`, "arc_then_line", r, start, goal, arcThenLine(start, goal.x, goal.y, r));
  }
  const origin: Pose = { x: 0, y: 0, heading: 0 };
  const edge: [string, Pose][] = [
    ["straight_ahead", { x: 3, y: 0, heading: 0 }],
    ["straight_behind", { x: -3, y: 0, heading: 0 }],
    ["u_turn_left", { x: 0, y: 2, heading: -Math.PI }],
    ["beside_same_heading", { x: 0, y: 0.5, heading: 0 }],
    ["turn_in_place", { x: 0, y: 0, heading: Math.PI / 2 }],
  ];
  for (const [name, goal] of edge) {
    add(`dubins_${name}`, "dubins", 1, origin, goal, dubinsShortest(origin, goal, 1));
    add(`reeds_shepp_${name}`, "reeds_shepp", 1, origin, goal, reedsSheppShortest(origin, goal, 1));
  }
  // Timed paths: the solvers' paths (with cusps, arcs under the lateral limit) and a long straight (accelerate,
  // cruise, brake) timed for built-in units.
  const base = (name: string) => out.find((p) => p.name === name)!;
  const timedPaths: GoldenPath[] = [];
  for (const [name, unitName] of [
    ["reeds_shepp_random_0", "tank"],
    ["reeds_shepp_random_1", "jeep"],
    ["reeds_shepp_straight_behind", "truck"],
    ["dubins_random_2", "jeep"],
    ["dubins_u_turn_left", "tank"],
    ["arc_then_line_random_3", "truck"],
  ] as const) {
    timedPaths.push(timed(base(name), unitName, solved.get(name)!));
  }
  const straight = lineSegment({ x: 0, y: 0, heading: 0.5 }, 30);
  const line: GoldenPath = {
    name: "straight_30",
    solver: "line",
    radius: 0,
    word: "S",
    length: 30,
    start: straight.start,
    goal: straight.end,
    ignoreGoalHeading: false,
    segments: [],
  };
  timedPaths.push(timed(line, "jeep", [straight]));
  return [...out, ...timedPaths];
}

/** The golden file's exact text. */
export function goldenText(): string {
  return JSON.stringify(goldenPaths(), null, 1) + "\n";
}

if (import.meta.main) {
  const url = new URL("./segments.json", import.meta.url);
  Deno.writeTextFileSync(url, goldenText());
  console.log(`wrote ${url.pathname}`);
}
