/**
 * The `prepare` option of an upload: the workers build the search tables the built-in profiles' first queries
 * would otherwise build (abstract graph and landmarks per clearance class, jump tables), each table once, by one
 * worker, published to the others over shared memory, before the upload is answered. A big map's abstract graphs
 * are prepared by the map builders instead, in parallel (mapGraphs.ts), and published the same way.
 *
 * @module
 */
import type { MapStore, MapVersion } from "./mapStore.ts";
import { builtinClasses } from "./mapLayers.ts";
import type { WorkerPool } from "./pool.ts";
import { ServiceError } from "./errors.ts";
import type { RegionTable } from "../maps/regions.ts";
import { graphInBackground, graphsInBackground } from "./mapGraphs.ts";
import { jumpTablesSettled } from "./mapJumps.ts";

/**
 * Builds the tables of `mv`'s default layer (each once, on one worker, shared with the others). The budget
 * counts their bytes against the version as the workers publish them (the pool's onPublish; they go when the
 * version is evicted: the workers drop its layer and tables). Resolves with the wall time in milliseconds and
 * the bytes built.
 */
export async function prepareVersion(
  store: MapStore,
  pool: WorkerPool,
  mv: MapVersion,
): Promise<{ millis: number; bytes: number }> {
  const t0 = performance.now();
  const entry = mv.layers.get([...mv.layers.keys()][0]);
  if (!entry) return { millis: 0, bytes: 0 };
  // Keep the version in memory while its tables build and the workers read it.
  const unpin = store.pin(mv);
  let bytes = 0;
  try {
    const shared = [{ key: entry.key, data: entry.layer as unknown }];
    const regionKeys: string[] = [];
    const tables: [number, RegionTable][] = [];
    for (const cls of builtinClasses()) {
      const key = `${entry.key}/${cls}`;
      // A big map's tables may still be building in the background: wait for them (no deadline here).
      const ready = await store.regionsReady(mv, entry, cls, Infinity);
      if (!("table" in ready)) throw new ServiceError("UNAVAILABLE", ready.building);
      shared.push({ key, data: ready.table });
      regionKeys.push(key);
      tables.push([cls, ready.table]);
    }
    if (graphsInBackground(mv.map)) {
      // Kept in the data directory: a graph prepared before (an earlier run, the same tiles) is read back.
      // Maps that are not persisted (ephemeral, built-in) keep no graph files either.
      const files = mv.ephemeral || mv.builtin ? null : store.graphFiles;
      const persist = { files, version: mv.version, mapId: mv.id };
      // A big map's graphs: prepared by the map builders in parallel (the ones a query started are joined, not
      // built twice) and published; the workers then adopt them instead of preparing their own.
      const built = await Promise.all(
        tables.map(([cls, table]) =>
          graphInBackground(store.builder, pool, entry, cls, table, 8, store.log, shared, persist).done
        ),
      );
      for (const b of built) bytes += b ?? 0;
    }
    // A big map's jump tables come from the map builders (mapJumps.ts): published first, no worker builds its own.
    bytes += await jumpTablesSettled(store, pool, mv);
    bytes += await pool.prepare(shared, entry.key, regionKeys);
  } finally {
    unpin();
  }
  return { millis: Math.round(performance.now() - t0), bytes };
}
