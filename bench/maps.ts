/**
 * Benchmark of the maps core on the shared 512x512 Moving AI maps: parsing, pass layer (clearance) and
 * region table build times, and an incremental update after a 4x4 patch against a full rebuild.
 *
 * Run alone: `node_modules/.bin/deno run -A bench/maps.ts`.
 *
 * @module
 */

import { resolve } from "node:path";
import { readFileSync } from "node:fs";
import { parseMovingAi } from "../src/maps/movingai.ts";
import { movingAiTerrain } from "../src/maps/terrain.ts";
import { buildPassLayer, updatePassLayer } from "../src/maps/layer.ts";
import { buildRegionTable } from "../src/maps/regionBuild.ts";
import { updateRegionTable } from "../src/maps/regionUpdate.ts";

const DATA = resolve(process.cwd(), "../shared/data/movingai");
const MAPS = ["AR0011SR.map", "Aftershock.map", "maze512-1-0.map", "8room_000.map", "random512-10-0.map"];
const LIMITS = { maxWidth: 4096, maxHeight: 4096, maxTiles: 1 << 24 };
const RUNS = 21;
const PATCH = 4;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1];
}

/** Median wall time in ms of `RUNS` calls of `fn(i)` after warm-up calls (JIT). */
function time(fn: (i: number) => void): number {
  for (let k = 0; k < 6; k++) fn(-1 - (k % 2));
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    fn(i);
    samples.push(performance.now() - start);
  }
  return median(samples);
}

/** Runs the benchmark and returns a markdown table (times are medians of 21 runs, ms). */
export async function benchMaps(): Promise<string> {
  const lines = [
    `Maps core, medians of ${RUNS} runs after warm-up (ms); incremental = updatePassLayer + updateRegionTable`,
    `after a ${PATCH}x${PATCH} patch, full = buildPassLayer + buildRegionTable (clearance class 0.5, sectors 16).`,
    "",
    "| map | parse | buildPassLayer | buildRegionTable | regions | components | incremental | full | full / incremental |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  for (const name of MAPS) {
    const text = readFileSync(resolve(DATA, name), "latin1");
    const terrain = movingAiTerrain();
    const parseMs = time(() => parseMovingAi(text, LIMITS));
    const grid = parseMovingAi(text, LIMITS);
    const layerMs = time(() => buildPassLayer(grid, terrain));
    const layer = buildPassLayer(grid, terrain);
    const regionMs = time(() => buildRegionTable(layer, 0.5));
    const table = buildRegionTable(layer, 0.5);

    // Patches at fixed pseudo-random spots; each run edits a copy of the tiles (copying is not timed).
    const { width, height } = grid;
    const spots = Array.from({ length: RUNS + 2 }, (_, i) => ({
      x: (i * 131 + 17) % (width - PATCH),
      y: (i * 197 + 41) % (height - PATCH),
      code: i % 2 === 0 ? 64 : 46,
    }));
    const patched = spots.map(({ x, y, code }) => {
      const tiles = grid.tiles.slice();
      for (let dy = 0; dy < PATCH; dy++) tiles.fill(code, (y + dy) * width + x, (y + dy) * width + x + PATCH);
      return { width, height, tiles };
    });
    const incrementalMs = time((i) => {
      const k = i + 2, { x, y } = spots[k];
      const update = updatePassLayer(layer, patched[k], terrain, x, y, x + PATCH, y + PATCH);
      updateRegionTable(
        table,
        update.layer,
        update.changed.x0,
        update.changed.y0,
        update.changed.x1,
        update.changed.y1,
      );
    });
    const fullMs = time((i) => {
      const next = buildPassLayer(patched[i + 2], terrain);
      buildRegionTable(next, 0.5);
    });
    lines.push(
      `| ${name} | ${parseMs.toFixed(2)} | ${layerMs.toFixed(2)} | ${
        regionMs.toFixed(2)
      } | ${table.regionCount} | ` +
        `${table.componentCount} | ${incrementalMs.toFixed(2)} | ${fullMs.toFixed(2)} | ${
          (fullMs / incrementalMs).toFixed(1)
        }x |`,
    );
    await Promise.resolve();
  }
  return lines.join("\n");
}

if (import.meta.main) console.log(await benchMaps());
