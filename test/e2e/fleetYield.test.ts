/**
 * End-to-end Fleet over gRPC: units yield to the right (Pinter). Two units meet head-on in a one-tile corridor
 * with a passing bay on each side; the one that yields steps into the bay on its right-hand side (as drawn, y
 * down), although the bay on its left is nearer. Checked by the independent checker (test/helpers/fleetCheck.ts):
 * 0 overlaps, 0 wall contacts, both arrive. Also the ordering rule in-process (fleetRefuge.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { call, startServer, type TestServer } from "../helpers/server.ts";
import { checkFleet, type CUnit, unitPose, unitsFromUpdates } from "../helpers/fleetCheck.ts";
import { fleetToSync } from "../helpers/fleetStream.ts";
import { rightHandFirst } from "../../src/service/fleetRefuge.ts";

let srv: TestServer;

// A corridor 1 tile wide from x = 2 to x = 29 (y = 2); a bay above it at x = 16, a bay below it at x = 18.
const W = 32;
const CORRIDOR = [
  "@".repeat(W),
  "@".repeat(16) + "." + "@".repeat(W - 17),
  "@@" + ".".repeat(W - 4) + "@@",
  "@".repeat(18) + "." + "@".repeat(W - 19),
  "@".repeat(W),
];

function mapText(rows: string[]): string {
  return ["type octile", `height ${rows.length}`, `width ${rows[0].length}`, "map", ...rows].join("\n");
}

beforeAll(async () => {
  srv = await startServer(["--no-demo"]);
  await call(srv.client, "PutMap", { id: "bays", movingai: mapText(CORRIDOR) });
}, 60_000);

afterAll(async () => {
  await srv?.stop();
});

// deno-lint-ignore no-explicit-any
type Any = any;

/** Runs a fleet of soldiers to its sync at 0; returns the checker's units. */
async function runFleet(
  units: { id: string; x: number; y: number; gx: number; gy: number }[],
): Promise<CUnit[]> {
  const updates = await fleetToSync(srv.client, "bays", units);
  return unitsFromUpdates(units, updates);
}

describe("Fleet: right-hand yielding", () => {
  test(
    "head-on in a corridor with bays on both sides: the yielding unit takes the bay on its right",
    async () => {
      // "east" is added first (it keeps priority); "west" stands in its way and must yield. For "west" (driving
      // towards -x) the bay below (x = 18, 2.7 tiles away) is on its left and nearer, the bay above (x = 16, 4.6
      // tiles away) is on its right.
      const units = [
        { id: "east", x: 2.5, y: 2.5, gx: 29.5, gy: 2.5 },
        { id: "west", x: 20.5, y: 2.5, gx: 2.5, gy: 2.5 },
      ];
      const cunits = await runFleet(units);
      const report = checkFleet(CORRIDOR, cunits);
      expect(report.contractErrors).toEqual([]);
      expect(report.overlaps).toEqual([]);
      expect(report.wallContacts).toEqual([]);
      expect(report.arrived.sort()).toEqual(["east", "west"]);
      // Who left the corridor, and to which side of its way (its goal's direction)?
      const sides = new Map<string, number>();
      for (const u of cunits) {
        for (let t = 0; t <= report.makespan + 1; t += 0.05) {
          const p = unitPose(u, t).pose;
          if (Math.abs(p.y - 2.5) > 0.6) sides.set(u.id, Math.sign(p.y - 2.5));
        }
      }
      expect([...sides.keys()]).toEqual(["west"]);
      // Driving towards -x, the right-hand side (as drawn, y down) is -y: the bay above.
      expect(sides.get("west")).toBe(-1);
    },
    60_000,
  );
});

describe("rightHandFirst", () => {
  const pose = { x: 10.5, y: 10.5, heading: 0 };
  test("a refuge on the right within the slack goes before a nearer one on the left; ties are deterministic", () => {
    const left = { x: 10.5, y: 8.5, heading: 0 }, right = { x: 12.5, y: 12.5, heading: 0 };
    // Driving towards +x the right-hand side is +y.
    expect(rightHandFirst([left, right], pose, 0)).toEqual([right, left]);
    // Driving towards -x it is -y.
    expect(rightHandFirst([right, left], pose, Math.PI)).toEqual([left, right]);
    const far = { x: 10.5, y: 17.5, heading: 0 };
    // Too far beyond the nearest (more than the slack): nearest first.
    expect(rightHandFirst([far, left], pose, 0)).toEqual([left, far]);
    const a = { x: 11.5, y: 11.5, heading: 0 }, b = { x: 9.5, y: 11.5, heading: 0 };
    expect(rightHandFirst([a, b], pose, 0)).toEqual(rightHandFirst([b, a], pose, 0));
  });
});
