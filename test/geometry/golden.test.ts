import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { goldenPaths, goldenText } from "../golden/generate.ts";
import { normalizeAngle } from "../../src/geometry/angle.ts";

const goldenFile = fileURLToPath(new URL("../golden/segments.json", import.meta.url));
const follower = fileURLToPath(new URL("../follower/follow.py", import.meta.url));

function runFollower(args: string[], input?: string) {
  return spawnSync("/usr/bin/python3", [follower, ...args], { input, encoding: "utf8" });
}

describe("golden segment vectors", () => {
  test("the committed file equals a fresh in-memory generation", () => {
    expect(goldenText()).toBe(readFileSync(goldenFile, "utf8"));
  });

  test("golden paths are joined, end at their goals and cover lines, arcs, both directions and cusps", () => {
    const paths = goldenPaths();
    expect(paths.length).toBeGreaterThanOrEqual(30);
    let reverse = 0;
    let cusps = 0;
    let lines = 0;
    let arcs = 0;
    for (const p of paths) {
      const segs = p.segments;
      for (let i = 0; i < segs.length; i++) {
        if (segs[i].direction < 0) reverse++;
        if (segs[i].kind === "SEGMENT_KIND_LINE") lines++;
        else arcs++;
        if (i > 0) {
          expect(segs[i].start).toEqual(segs[i - 1].end);
          if (segs[i].direction !== segs[i - 1].direction) cusps++;
        }
      }
      const end = segs.length ? segs[segs.length - 1].end : p.start;
      expect(Math.hypot(end.x - p.goal.x, end.y - p.goal.y)).toBeLessThan(1e-9 * 20);
      if (!p.ignoreGoalHeading) {
        expect(Math.abs(normalizeAngle(end.heading - p.goal.heading))).toBeLessThan(1e-9);
      }
    }
    expect(reverse).toBeGreaterThan(0);
    expect(cusps).toBeGreaterThan(0);
    expect(lines).toBeGreaterThan(0);
    expect(arcs).toBeGreaterThan(0);
  });
});

describe("timed golden paths", () => {
  test("speed is linear in time within every segment: length = (start_speed + end_speed) / 2 * duration", () => {
    const timed = goldenPaths().filter((p) => p.timeSamples);
    expect(timed.length).toBeGreaterThanOrEqual(7);
    let phases = 0;
    for (const p of timed) {
      for (const [i, s] of p.segments.entries()) {
        expect(s.duration!).toBeGreaterThan(0);
        const mean = 0.5 * (s.start_speed! + s.end_speed!) * s.duration!;
        expect(Math.abs(mean - s.length)).toBeLessThanOrEqual(1e-12 * Math.max(1, s.length));
        expect(Math.max(s.start_speed!, s.end_speed!)).toBeLessThanOrEqual(p.maxSpeed! * (1 + 1e-12));
        const prev = p.segments[i - 1];
        if (prev && prev.curvature === s.curvature && prev.direction === s.direction) phases++;
      }
      // The clock's samples run from the start to the end of the path.
      const first = p.timeSamples![0], last = p.timeSamples!.at(-1)!;
      expect(Math.hypot(first.x - p.start.x, first.y - p.start.y)).toBeLessThan(1e-12);
      const end = p.segments.at(-1)!.end;
      expect(Math.hypot(last.x - end.x, last.y - end.y)).toBeLessThan(1e-9);
    }
    // The straight is split into its accelerate, cruise and brake phases, and so are other segments.
    expect(timed.find((p) => p.name === "timed_jeep_straight_30")!.segments.length).toBe(3);
    expect(phases).toBeGreaterThan(3);
  });

  test("the follower fails a timed path with a merged phase or a moved time sample", () => {
    const paths = JSON.parse(readFileSync(goldenFile, "utf8")).filter((p: { timeSamples?: unknown }) =>
      p.timeSamples
    );
    const merged = structuredClone(paths.find((p: { name: string }) => p.name === "timed_jeep_straight_30"));
    // One segment for the whole straight, timed as before: the identity fails (the old, inexact contract).
    const [a, b, c] = merged.segments;
    merged.segments = [{
      ...a,
      end: c.end,
      length: 30,
      end_speed: 0,
      duration: a.duration + b.duration + c.duration,
    }];
    const moved = structuredClone(paths[0]);
    moved.timeSamples[4].x += 0.01;
    const dir = mkdtempSync(join(tmpdir(), "arcpath-follow-"));
    const file = join(dir, "timed.json");
    writeFileSync(file, JSON.stringify([merged, moved, paths[1]]));
    const run = runFollower([file]);
    expect(run.status).toBe(1);
    expect(run.stdout.trim()).toBe("1 passed, 2 failed");
    expect(run.stderr).toContain("(v0 + v1) / 2 * duration");
    expect(run.stderr).toContain("differs from the sample");
  });
});

describe("Python follower (test/follower/follow.py)", () => {
  test("passes every golden path (file argument and stdin)", () => {
    const count = goldenPaths().length;
    const run = runFollower([goldenFile]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe(`${count} passed, 0 failed`);
    const piped = runFollower([], readFileSync(goldenFile, "utf8"));
    expect(piped.status).toBe(0);
    expect(piped.stdout.trim()).toBe(`${count} passed, 0 failed`);
  });

  test("fails a corrupted copy: a moved end, a broken join, a wrong goal", () => {
    const paths = JSON.parse(readFileSync(goldenFile, "utf8"));
    const withSegs = paths.filter((p: { segments: unknown[] }) => p.segments.length >= 2);
    withSegs[0].segments[0].end.x += 0.01; // stated end no longer matches the integration (and the join)
    withSegs[1].segments[1].start.heading += 0.001; // broken join
    withSegs[2].goal.y -= 0.5; // wrong goal
    withSegs[3].segments[0].curvature *= -1; // arc turning the wrong way
    const dir = mkdtempSync(join(tmpdir(), "arcpath-follow-"));
    const corrupted = join(dir, "corrupted.json");
    writeFileSync(corrupted, JSON.stringify(paths));
    const run = runFollower([corrupted]);
    expect(run.status).not.toBe(0);
    expect(run.stdout.trim()).toBe(`${paths.length - 4} passed, 4 failed`);
  });
});
