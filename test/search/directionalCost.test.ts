import { describe, expect, test } from "vitest";
import { buildPassLayer } from "../../src/maps/layer.ts";
import { movingAiTerrain, withOverrides } from "../../src/maps/terrain.ts";
import { pathCost, segmentTerrainCost } from "../../src/motion/pathCost.ts";
import { planDirectional, tableProfileOf } from "../../src/planning/directional.ts";
import { COST_SCALE } from "../../src/search/astar.ts";
import { headingAngle } from "../../src/search/directionTable.ts";
import {
  costTermsOf,
  piecesOf,
  terrainPiecesOf,
  terrainTransitionCost,
} from "../../src/search/directionalCost.ts";
import { IS_REEDS_SHEPP, transitionCurve } from "../../src/search/hitCheckTable.ts";
import { tableStore } from "../../src/service/directionalTables.ts";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";
import { checkPath, contextOf, costedLayer, taskOf } from "../helpers/pathCheck.ts";

const tank = { ...BUILTIN_PROFILES.tank };

describe("directional transitions charge the terrain they cross", () => {
  const tables = tableStore.tablesUntil(tableProfileOf(tank, 24, true), null)!;
  const hit = tables.hit;

  test("each transition's pieces sum to its forward and reverse lengths", () => {
    const p = terrainPiecesOf(hit);
    for (let t = 0; t < hit.dx.length; t++) {
      let f = 0, r = 0;
      for (let k = p.pieceStart[t]; k < p.pieceStart[t + 1]; k++) {
        f += p.forward[k];
        r += p.reverse[k];
      }
      expect(f).toBeCloseTo(hit.forwardLength[t], 9);
      expect(r).toBeCloseTo(hit.reverseLength[t], 9);
    }
  });

  test("a transition's cost is the cost model's terrain integral of its curve", () => {
    // A 16x16 layer of pseudo-random tile costs 1-20, the transitions from tile (8, 8).
    const rows: string[] = [];
    let seed = 5;
    const codes: number[] = [];
    for (let y = 0; y < 16; y++) {
      let row = "";
      for (let x = 0; x < 16; x++) {
        seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
        const c = 1 + (seed >>> 24) % 20;
        codes.push(c);
        row += String.fromCharCode(96 + c); // 'a' + c - 1
      }
      rows.push(row);
    }
    const tiles = new Uint8Array(new SharedArrayBuffer(256));
    for (let i = 0; i < 256; i++) tiles[i] = rows[i >> 4].charCodeAt(i & 15);
    const entries = Array.from(
      { length: 20 },
      (_, i) => ({ code: 97 + i, cost: i + 1, impassable: false, road: false }),
    );
    const layer = buildPassLayer({ width: 16, height: 16, tiles }, withOverrides(movingAiTerrain(), entries));
    const terms = costTermsOf(hit, 2, 0.5, 3);
    const { pieces } = piecesOf(terms, hit, 2);
    const cost = new Float32Array(256);
    for (let i = 0; i < 256; i++) cost[i] = layer.tileCost[i];
    const local = new Int32Array(pieces.dx.length);
    for (let k = 0; k < local.length; k++) local[k] = pieces.dy[k] * 16 + pieces.dx[k];
    const H = hit.profile.headings;
    let checked = 0, borderCases = 0;
    for (let h = 0; h < H; h++) {
      for (let t = hit.transitionStart[h]; t < hit.transitionStart[h + 1]; t += 7) {
        // The table's curve (from the origin tile (0, 0), as built), moved to tile (8, 8).
        const segs = transitionCurve(
          { x: 0.5, y: 0.5, heading: headingAngle(h, H) },
          { x: 0.5 + hit.dx[t], y: 0.5 + hit.dy[t], heading: headingAngle(hit.endHeading[t], H) },
          hit.profile.turningRadius,
          (hit.flags[t] & IS_REEDS_SHEPP) !== 0 ? 1 : 0,
        );
        let terrain = 0;
        for (const s of segs) {
          const moved = { ...s, start: { ...s.start, x: s.start.x + 8, y: s.start.y + 8 } };
          terrain += segmentTerrainCost(moved, layer) * (s.direction < 0 ? 2 : 1);
        }
        const ref = terrain + 0.5 * hit.turn[t] + 3 * hit.cusps[t];
        const got = terrainTransitionCost(terms, t, cost, 8 * 16 + 8, local, hit.flags[t] & 1);
        // A line running exactly along a tile border may be charged either side's tile (float noise).
        if (Math.abs(got / COST_SCALE - ref) > 1e-3) borderCases++;
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(100);
    expect(borderCases).toBeLessThan(checked * 0.05);
  });

  test("a thin swamp band is not hopped over for free", () => {
    // A cost-20 band one tile wide across the map but for a gap near the top: crossing it straight adds 19,
    // the detour through the gap adds about 6. Charging only the end tile of a transition let 2-tile hops
    // jump the band for nothing.
    const W = 40, Hh = 20;
    const rows: string[] = [];
    for (let y = 0; y < Hh; y++) {
      let r = "";
      for (let x = 0; x < W; x++) {
        const border = x === 0 || y === 0 || x === W - 1 || y === Hh - 1;
        r += border ? "@" : x === 20 && y > 3 ? "s" : ".";
      }
      rows.push(r);
    }
    const layer = costedLayer(rows, 20);
    const ctx = contextOf(layer);
    const start = { x: 5.5, y: 12.5, heading: 0 }, goal = { x: 34.5, y: 12.5, heading: 0 };
    const out = planDirectional(ctx, taskOf(layer, tank, start, goal, { neighborhood: 24 }));
    expect(out.status).toBe("found");
    expect(checkPath(layer, tank, out, start, goal)).toEqual([]);
    const c = pathCost(out.segments, tank, layer);
    // Straight through the band: 29 + 19 = 48; through the gap about 36.
    expect(c.total).toBeLessThan(42);
  });
});
