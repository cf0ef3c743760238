/**
 * A patch's write: tile edits to a map's latest version make a new version whose pass layers and region tables
 * are updated only where the edits reach (mapPatch.ts). It is conditional on the version the client expects,
 * made the latest only once durably written, and started again from a shared store's newer latest version when
 * another process committed first. The map store (mapStore.ts) runs it in the map's write queue.
 *
 * @module
 */
import { mapVersion } from "../maps/version.ts";
import { formatValue, ServiceError } from "./errors.ts";
import type { MapVersion, VersionCache } from "./mapCache.ts";
import { displayId } from "./mapKeys.ts";
import { applyEdits, type PatchEvent, patchLayers, type TileEditSpec } from "./mapPatch.ts";
import type { SharedSync } from "./mapSync.ts";
import type { VersionTables } from "./mapTables.ts";
import type { VersionWriter } from "./mapVersions.ts";

/** What a patch's write uses of the map store. */
export interface PatchWriteHost {
  /** The cached versions. */
  cache: VersionCache;
  /** How versions are made, written and made the latest. */
  versions: VersionWriter;
  /** Versions' layers and region tables (a patch waits for their background builds). */
  tables: VersionTables;
  /** Keeps this process in step with other processes (shared backends only). */
  sync: SharedSync | null;
  /** The name of the backend maps persist in (for the contention error). */
  backendName(): string;
  /** The latest version of a map, reloaded from the backend if evicted; NOT_FOUND if none. */
  latest(id: string): Promise<MapVersion>;
  /** Tells the patch listeners (streams replan from them). */
  patched(e: PatchEvent): void;
}

/**
 * Applies tile edits to the latest version of `id`, making a new version (see MapStore.patch; the caller holds
 * the map's write queue). A shared store may have a newer latest version than this process knows: the patch
 * starts from the store's, and if another process commits first, starts again from its version (a conditional
 * patch fails instead).
 */
export async function writePatch(
  host: PatchWriteHost,
  id: string,
  expectedVersion: string,
  edits: TileEditSpec[],
): Promise<PatchEvent> {
  for (let attempt = 0;; attempt++) {
    const latest = host.cache.latest(id);
    const ephemeral = latest !== undefined && host.cache.peek(id, latest)?.ephemeral;
    if (host.sync && !ephemeral) await host.sync.catchUpNow(id, true);
    const event = await patchOnce(host, id, expectedVersion, edits);
    if (event) return event;
    if (attempt >= 100) {
      throw new ServiceError(
        "UNAVAILABLE",
        `${host.backendName()}: too much contention patching ${formatValue(displayId(id))}; retry`,
      );
    }
    await new Promise((r) => setTimeout(r, Math.random() * Math.min(50, 2 * attempt)));
  }
}

/** One try of a patch; null if a shared store's latest version moved meanwhile (unconditional: retry). */
async function patchOnce(
  host: PatchWriteHost,
  id: string,
  expectedVersion: string,
  edits: TileEditSpec[],
): Promise<PatchEvent | null> {
  const from = await host.latest(id);
  // Region tables still building in the background are waited for, so the patch updates them too.
  await host.tables.settled(from);
  if (expectedVersion !== "" && expectedVersion !== from.version) {
    throw new ServiceError(
      "FAILED_PRECONDITION",
      `map.version: ${formatValue(expectedVersion)} is not the latest version of ${
        formatValue(displayId(id))
      } ` +
        `(latest is ${from.version})`,
    );
  }
  const { map, rects } = applyEdits(from.map, edits);
  const version = mapVersion(map.tiles, map.width, map.height, map.terrain);
  const t0 = performance.now();
  const flags = { ephemeral: from.ephemeral };
  const to = host.versions.newVersion(
    id,
    version,
    map,
    from.terrainInput,
    flags,
    (to) => patchLayers(from, to, rects),
  );
  const seq = await host.versions.makeLatest(to, true, from.version, { kind: "patch", rects });
  if (seq === null) {
    if (expectedVersion !== "") {
      throw new ServiceError(
        "FAILED_PRECONDITION",
        `map.version: ${formatValue(expectedVersion)} is not the latest version of ${
          formatValue(displayId(id))
        } (another replica patched it first)`,
      );
    }
    return null;
  }
  const event: PatchEvent = {
    id,
    from,
    to,
    rects,
    updateMicros: Math.round((performance.now() - t0) * 1000),
  };
  host.patched(event);
  return event;
}
