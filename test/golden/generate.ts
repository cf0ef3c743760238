/**
 * Generates the golden segment vectors (test/golden/segments.json): a few dozen paths from the curve solvers,
 * in the proto's JSON field names, for clients to check their segment followers against. Run:
 * `deno run -A test/golden/generate.ts` (writes the file). A test regenerates it in memory and compares.
 *
 * @module
 */

import { arcThenLine, dubinsShortest, reedsSheppShortest } from "../../src/geometry/curves.ts";
import type { CurvePath } from "../../src/geometry/curves.ts";
import type { Pose, Segment } from "../../src/geometry/types.ts";

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
  /** The segments in proto JSON form. */
  segments: {
    kind: "SEGMENT_KIND_LINE" | "SEGMENT_KIND_ARC";
    start: Pose;
    end: Pose;
    length: number;
    curvature: number;
    direction: number;
  }[];
}

function wire(seg: Segment): GoldenPath["segments"][number] {
  return {
    kind: seg.curvature === 0 ? "SEGMENT_KIND_LINE" : "SEGMENT_KIND_ARC",
    start: { x: seg.start.x, y: seg.start.y, heading: seg.start.heading },
    end: { x: seg.end.x, y: seg.end.y, heading: seg.end.heading },
    length: seg.length,
    curvature: seg.curvature,
    direction: seg.direction,
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
  const add = (name: string, solver: string, r: number, start: Pose, goal: Pose, path: CurvePath) => {
    const ignore = solver === "arc_then_line";
    const last = path.segments[path.segments.length - 1];
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
  return out;
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
