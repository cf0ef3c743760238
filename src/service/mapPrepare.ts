/**
 * The `prepare` option of an upload: every worker builds the search tables the built-in profiles' first
 * queries would otherwise build (abstract graph and landmarks per clearance class, jump tables), before the
 * upload is answered.
 *
 * @module
 */
import type { MapStore, MapVersion } from "./mapStore.ts";
import { builtinClasses } from "./mapLayers.ts";
import type { WorkerPool } from "./pool.ts";

/**
 * Builds the tables of `mv`'s default layer on every worker and counts their bytes (all workers') in the map
 * memory budget against the version, which holds them (they go when it is evicted: the workers drop its layer
 * and tables). Resolves with the wall time in milliseconds and the bytes.
 */
export async function prepareVersion(
  store: MapStore,
  pool: WorkerPool,
  mv: MapVersion,
): Promise<{ millis: number; bytes: number }> {
  const t0 = performance.now();
  const entry = mv.layers.get([...mv.layers.keys()][0]);
  if (!entry) return { millis: 0, bytes: 0 };
  const shared = [{ key: entry.key, data: entry.layer as unknown }];
  const regionKeys: string[] = [];
  for (const cls of builtinClasses()) {
    const key = `${entry.key}/${cls}`;
    shared.push({ key, data: store.regionsFor(mv, entry, cls) });
    regionKeys.push(key);
  }
  // Keep the version in memory while the workers read it.
  const unpin = store.pin(mv);
  let bytes = 0;
  try {
    bytes = await pool.prepare(shared, entry.key, regionKeys);
    store.countWorkerTables(mv, bytes);
  } finally {
    unpin();
  }
  return { millis: Math.round(performance.now() - t0), bytes };
}
