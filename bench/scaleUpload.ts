/**
 * What the big-map benches (scale.ts, scaleHierarchy.ts, mapGrowth.ts) do to a real server: upload a square map in
 * row chunks over PutMapChunks, and read the server's resident set.
 *
 * @module
 */
import { readFileSync } from "node:fs";

/** Bytes per upload chunk, about (whole rows). */
export const CHUNK_BYTES = 256 * 1024;

/** Resident set of process `pid` in bytes (Linux /proc), NaN when it cannot be read. */
export function rssBytes(pid: number): number {
  const m = readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s+(\d+) kB/);
  return m ? Number(m[1]) * 1024 : NaN;
}

/** Uploads the `side` x `side` Moving AI tile codes `tiles` as map `id` in row chunks; resolves to the MapInfo. */
export function putChunks(
  // deno-lint-ignore no-explicit-any
  client: any,
  id: string,
  side: number,
  tiles: Uint8Array,
  prepare = false,
  // deno-lint-ignore no-explicit-any
): Promise<any> {
  return new Promise((res, rej) => {
    const s = client.PutMapChunks((err: Error | null, info: unknown) => (err ? rej(err) : res(info)));
    s.write({ header: { id, width: side, height: side, format: "TILE_FORMAT_MOVINGAI", prepare } });
    const rows = Math.max(1, Math.floor(CHUNK_BYTES / side));
    for (let y = 0; y < side; y += rows) {
      const h = Math.min(rows, side - y);
      s.write({
        chunk: { x: 0, y, width: side, height: h, tiles: tiles.subarray(y * side, (y + h) * side) },
      });
    }
    s.end();
  });
}
