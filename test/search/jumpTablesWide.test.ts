/**
 * Jump tables hold one byte a cell whatever the side: distances beyond a byte are chained LONG_RUN entries, and
 * on corridors far longer than a byte (or an Int16) the decoded distances are exact and the jump-point search
 * finds exactly GridSpace's cost (a wrong chain would send a scan the wrong way or stop it early).
 */
import { describe, expect, test } from "vitest";
import { buildPassLayer } from "../../src/maps/layer.ts";
import { rawTerrain } from "../../src/maps/terrain.ts";
import { astar, SearchWorkspace, unlimited } from "../../src/search/astar.ts";
import { GridSpace } from "../../src/search/gridSpace.ts";
import { JumpPointSpace, straightJumps } from "../../src/search/jumpPointSpace.ts";
import { jumpDistance } from "../../src/search/jumpTables.ts";

/** A width x 5 corridor (code 0 open), with a pillar in the middle row every 997 columns. */
function corridor(width: number) {
  const height = 5;
  const tiles = new Uint8Array(width * height);
  for (let x = 500; x < width; x += 997) tiles[2 * width + x] = 1;
  return buildPassLayer({ width, height, tiles }, rawTerrain());
}

describe("jump tables wide maps", () => {
  for (const [width, kind] of [[300, Int8Array], [32765, Int8Array], [40000, Int8Array]] as const) {
    test(`${width} columns: ${kind.name} tables, the same cost as plain A*`, () => {
      const layer = corridor(width);
      const tables = straightJumps(layer, 0.5);
      expect(tables.east).toBeInstanceOf(kind);
      // Row 0 has no pillar: from its first tile the east scan runs to the wall, width - 1 steps.
      expect(Math.abs(jumpDistance(tables.east, (width + 2) * 1 + 1, 1))).toBe(width - 1);
      // And from the last tile west, the same run.
      expect(Math.abs(jumpDistance(tables.west, (width + 2) * 1 + width, -1))).toBe(width - 1);
      const start = 0, goal = 4 * width + width - 1;
      const ws = new SearchWorkspace();
      const jps = astar(new JumpPointSpace().configure(layer, 0.5, goal), ws, [start], unlimited());
      const jpsCost = jps.cost;
      const plain = astar(new GridSpace().configure(layer, 0.5, 8, goal), ws, [start], unlimited());
      expect(jps.status).toBe("found");
      expect(jpsCost).toBe(plain.cost);
    });
  }
});
