/**
 * Every OMPL reference case (400 Dubins, 400 Reeds-Shepp) through the Curve RPC over real gRPC: the length within
 * 1e-6 relative, and the returned segments, integrated here in closed form, end at the goal pose.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { call, SHARED, startServer, type TestServer } from "../helpers/server.ts";

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer(["--no-demo"]);
}, 120_000);
afterAll(async () => {
  await srv?.stop();
});

interface RefCase {
  tag: string;
  start: { x: number; y: number; theta: number };
  goal: { x: number; y: number; theta: number };
  radius: number;
  length: number;
}

/** Integrates wire segments from a start pose (independent of src/geometry). */
function integrate(
  start: { x: number; y: number; heading: number },
  segs: {
    length: number;
    curvature: number;
    direction: number;
    start: { x: number; y: number; heading: number };
  }[],
) {
  let { x, y, heading: h } = start;
  for (const s of segs) {
    // Each segment must start where the previous one ended.
    expect(Math.hypot(s.start.x - x, s.start.y - y)).toBeLessThan(
      1e-9 * Math.max(1, Math.abs(x), Math.abs(y)),
    );
    const d = s.direction, k = s.curvature, u = s.length;
    if (k === 0) {
      x += d * u * Math.cos(h);
      y += d * u * Math.sin(h);
    } else {
      const h1 = h + d * k * u;
      x += (Math.sin(h1) - Math.sin(h)) / k;
      y -= (Math.cos(h1) - Math.cos(h)) / k;
      h = h1;
    }
  }
  return { x, y, heading: h };
}

function angleGap(a: number, b: number): number {
  const d = ((a - b) % (2 * Math.PI) + 3 * Math.PI) % (2 * Math.PI) - Math.PI;
  return Math.abs(d);
}

for (const [file, reverse] of [["dubins.json", false], ["reeds_shepp.json", true]] as const) {
  describe(`Curve RPC on ${file}`, () => {
    test("every case: shortest length and an exact end pose", async () => {
      const cases = JSON.parse(readFileSync(join(SHARED, "data/curves", file), "utf8")) as RefCase[];
      expect(cases.length).toBe(400);
      const bad: string[] = [];
      for (let i = 0; i < cases.length; i += 20) {
        const batch = cases.slice(i, i + 20);
        const results = await Promise.all(batch.map((c) =>
          call(srv.client, "Curve", {
            start: { x: c.start.x, y: c.start.y, heading: c.start.theta },
            goal: { x: c.goal.x, y: c.goal.y, heading: c.goal.theta },
            turning_radius: c.radius,
            allow_reverse: reverse,
          })
        ));
        results.forEach((res, j) => {
          const c = batch[j];
          if (Math.abs(res.length - c.length) > Math.max(1e-9, 1e-6 * c.length)) {
            bad.push(`${i + j} ${c.tag}: length ${res.length} vs ${c.length}`);
          }
          const start = { x: c.start.x, y: c.start.y, heading: c.start.theta };
          const end = integrate(start, res.segments);
          const scale = Math.max(
            1,
            c.radius,
            Math.abs(c.goal.x),
            Math.abs(c.goal.y),
            Math.abs(c.start.x),
            Math.abs(c.start.y),
          );
          const posErr = Math.hypot(end.x - c.goal.x, end.y - c.goal.y);
          const headErr = angleGap(end.heading, c.goal.theta) * c.radius;
          if (posErr > 1e-9 * scale || headErr > 1e-9 * scale) {
            bad.push(`${i + j} ${c.tag}: end off by ${posErr}, ${headErr}`);
          }
          for (const s of res.segments) {
            if (s.curvature !== 0 && Math.abs(Math.abs(s.curvature) - 1 / c.radius) > 1e-12 / c.radius) {
              bad.push(`${i + j}: curvature ${s.curvature} for radius ${c.radius}`);
            }
            if (!reverse && s.direction !== 1) bad.push(`${i + j}: Dubins segment driven in reverse`);
          }
        });
      }
      expect(bad).toEqual([]);
    }, 300_000);
  });
}
