/**
 * The map cache: LRU eviction under the byte budget, pinned versions never evicted, evicted persisted maps
 * reloaded from disk, unrecoverable versions kept, atomic persistence.
 */
import { describe, expect, test } from "vitest";
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_LIMITS, MapStore } from "../../src/service/mapStore.ts";
import { ServiceError } from "../../src/service/errors.ts";

function open(w: number, h: number, wallAt = -1): string {
  const rows: string[] = [];
  for (let y = 0; y < h; y++) {
    let r = "";
    for (let x = 0; x < w; x++) r += x === wallAt ? "@" : ".";
    rows.push(r);
  }
  return `type octile\nheight ${h}\nwidth ${w}\nmap\n${rows.join("\n")}\n`;
}

async function putText(store: MapStore, id: string, text: string, flags = {}) {
  return await store.put(id, store.parse({ kind: "movingai", text }, []), [], flags);
}

describe("MapStore", () => {
  test("evicts least recently used versions past the budget and reloads them from disk", async () => {
    const dir = mkdtempSync(join(tmpdir(), "arcpath-store-"));
    // Measure one 64x64 map's footprint, then allow about three of them.
    const probe = new MapStore({ dataDir: null, budgetBytes: 1e9, limits: DEFAULT_LIMITS });
    const one = (await putText(probe, "probe", open(64, 64))).bytes;
    const evicted: string[] = [];
    const store = new MapStore({ dataDir: dir, budgetBytes: Math.floor(one * 3.5), limits: DEFAULT_LIMITS });
    store.onEvict((keys) => evicted.push(...keys));
    const a = await putText(store, "a", open(64, 64, 1));
    await putText(store, "b", open(64, 64, 2));
    await putText(store, "c", open(64, 64, 3));
    expect(store.cachedVersions).toBe(3);
    await store.get("a", ""); // a is now the most recently used; b is the LRU
    await putText(store, "d", open(64, 64, 4));
    expect(store.cachedVersions).toBe(3);
    expect(store.bytes).toBeLessThanOrEqual(Math.floor(one * 3.5));
    expect(evicted.some((k) => k.startsWith("b@"))).toBe(true);
    expect(evicted.some((k) => k.startsWith("a@"))).toBe(false);
    // b is on disk: asking for it brings it back, with the same version.
    const b = await store.get("b", "");
    expect(b.map.tiles[2]).toBe("@".charCodeAt(0));
    expect(store.ids()).toEqual(["a", "b", "c", "d"]);
    expect(a.version).toBe((await store.get("a", "")).version);
    // Only final files remain: every write went through a temporary file and a rename.
    expect(readdirSync(join(dir, "maps")).sort()).toEqual(["a.json", "b.json", "c.json", "d.json"]);
  });

  test("a pinned version is never evicted; with nothing evictable, RESOURCE_EXHAUSTED", async () => {
    const probe = new MapStore({ dataDir: null, budgetBytes: 1e9, limits: DEFAULT_LIMITS });
    const one = (await putText(probe, "probe", open(64, 64))).bytes;
    // No data directory: latest versions cannot be reloaded, so they are kept.
    const store = new MapStore({ dataDir: null, budgetBytes: Math.floor(one * 2.5), limits: DEFAULT_LIMITS });
    const v1 = await putText(store, "m", open(64, 64, 1));
    const unpin = store.pin(v1);
    await putText(store, "m", open(64, 64, 2)); // v2 is latest; v1 is old but pinned
    const err = await putText(store, "other", open(64, 64, 3)).catch((e) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect((err as ServiceError).code).toBe("RESOURCE_EXHAUSTED");
    expect((await store.get("m", v1.version)).version).toBe(v1.version);
    unpin();
    // Unpinned, the old version can make room.
    await putText(store, "other", open(64, 64, 3));
    await expect(store.get("m", v1.version)).rejects.toThrow(/no version/);
    expect((await store.get("other", "")).id).toBe("other");
  });
});
