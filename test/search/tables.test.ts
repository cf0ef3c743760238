/** Committed tables are reproducible byte for byte, and the tables are sound (lower bounds, loadable). */
import { describe, expect, test } from "vitest";
import { gunzipSync } from "node:zlib";
import { readFileSync } from "node:fs";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";
import { tableBytes, tableProfileOf } from "../../src/planning/directional.ts";
import { compressTables, TABLE_DIR, tableFileName } from "../../src/service/directionalTables.ts";
import { unpackTables } from "../../src/search/hitCheckTable.ts";
import { curveLowerBound } from "../../src/search/heuristicTable.ts";
import { reedsSheppLengthCoords } from "../../src/geometry/reedsShepp.ts";
import { headingAngle } from "../../src/search/directionTable.ts";

describe("tables", () => {
  test("a fresh in-memory generation equals the committed file (tank, Directional-8)", () => {
    const profile = tableProfileOf(BUILTIN_PROFILES.tank, 8);
    const file = new Uint8Array(readFileSync(new URL(tableFileName(profile), TABLE_DIR)));
    const fresh = tableBytes(profile);
    expect(Buffer.compare(Buffer.from(new Uint8Array(gunzipSync(file))), Buffer.from(fresh))).toBe(0);
    expect(Buffer.compare(Buffer.from(compressTables(fresh)), Buffer.from(file))).toBe(0);
  });

  test("heuristic table values never exceed the true Reeds-Shepp length (rotated lookups included)", () => {
    const profile = tableProfileOf(BUILTIN_PROFILES.tank, 8);
    const file = new Uint8Array(readFileSync(new URL(tableFileName(profile), TABLE_DIR)));
    const { hit, heur } = unpackTables(new Uint8Array(gunzipSync(file)));
    expect(hit.key).toBe("disc0.9-r1.5-h8-d8-rs");
    let checked = 0;
    for (let h0 = 0; h0 < 8; h0++) {
      for (let dy = -6; dy <= 6; dy += 3) {
        for (let dx = -6; dx <= 6; dx += 2) {
          for (let h1 = 0; h1 < 8; h1++) {
            const truth = reedsSheppLengthCoords(0, 0, headingAngle(h0, 8), dx, dy, headingAngle(h1, 8), 1.5);
            const lb = curveLowerBound(heur, dx, dy, h0, h1);
            expect(lb).toBeLessThanOrEqual(truth + 1e-12);
            expect(truth - lb).toBeLessThan(0.01);
            checked++;
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(1000);
    // Every transition's cell list starts with its destination tile.
    for (let t = 0; t < hit.dx.length; t++) {
      expect(hit.cells[2 * hit.cellStart[t]]).toBe(hit.dx[t]);
      expect(hit.cells[2 * hit.cellStart[t] + 1]).toBe(hit.dy[t]);
    }
  });
});
