/**
 * What the big-map benches (scale.ts, scaleHierarchy.ts, mapGrowth.ts) do to a real server: upload a square map in
 * row chunks over PutMapChunks, and read the server's resident set.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { call, startServer, type TestServer } from "../test/helpers/server.ts";

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

/**
 * performance.now() once GetMap no longer says map `mapId` is being prepared (its background tables), polled every
 * 100 ms for at most 600 s.
 */
export async function whenPrepared(srv: TestServer, mapId: string): Promise<number> {
  for (let i = 0; i < 6000; i++) {
    if (!(await call(srv.client, "GetMap", { map: { id: mapId } })).preparing) return performance.now();
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`map ${mapId} still preparing after 600 s`);
}

/** A real server for the big-map benches: `workers` planner workers, no demo maps, a 16 GB map budget, in `dir`. */
export function startScaleServer(dir: string, workers = 2): Promise<TestServer> {
  return startServer(
    ["--workers", String(workers), "--no-demo", "--map-memory-mb", "16384"],
    dir,
    { testHooks: false, logLevel: "warn" },
  );
}
