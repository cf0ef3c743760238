/**
 * The map cache: LRU eviction under the byte budget, pinned versions never evicted, evicted persisted maps
 * reloaded from disk, unrecoverable versions kept, atomic persistence; a restarted store reloading the data
 * directory, patches (conditional, persisted, announced) and deletion.
 */
import { describe, expect, test } from "vitest";
import { existsSync, mkdtempSync, readdirSync } from "node:fs";
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

  test("a restarted store reloads every persisted map at its latest version, patched ones included", async () => {
    const dir = mkdtempSync(join(tmpdir(), "arcpath-store-"));
    const first = new MapStore({ dataDir: dir, budgetBytes: 1e9, limits: DEFAULT_LIMITS });
    const a = await putText(first, "a", open(16, 8, 3));
    const b = await putText(first, "b", open(16, 8));
    await putText(first, "shipped", open(8, 8), { builtin: true });
    await putText(first, "scratch", open(8, 8), { ephemeral: true });
    await putText(first, "quiet", open(8, 8), { persist: false });
    const patched = (await first.patch("b", b.version, [{ x: 2, y: 2, width: 3, height: 2, code: 64 }])).to;
    expect(readdirSync(join(dir, "maps")).sort()).toEqual(["a.json", "b.json"]);

    const second = new MapStore({ dataDir: dir, budgetBytes: 1e9, limits: DEFAULT_LIMITS });
    expect(await second.loadPersisted()).toBe(2);
    expect(second.ids()).toEqual(["a", "b"]);
    expect(second.latestVersion("a")).toBe(a.version);
    expect(second.latestVersion("b")).toBe(patched.version);
    const b2 = await second.get("b", "");
    expect([...b2.map.tiles]).toEqual([...patched.map.tiles]);
    expect(b2.terrainInput).toEqual([]);
    // The reloaded version has the layer and region tables a fresh upload gets.
    expect([...b2.layers.keys()]).toEqual([...patched.layers.keys()]);
    for (const [k, entry] of b2.layers) {
      expect([...entry.regions.keys()]).toEqual([...patched.layers.get(k)!.regions.keys()]);
    }
  });

  test("patches: conditional on the latest version, announced to listeners, same content gives the same version", async () => {
    const store = new MapStore({ dataDir: null, budgetBytes: 1e9, limits: DEFAULT_LIMITS });
    const v1 = await putText(store, "m", open(16, 8));
    const seen: string[] = [];
    const off = store.onPatch((e) => seen.push(`${e.id} ${e.from.version}->${e.to.version}`));
    const wall = { x: 4, y: 0, width: 1, height: 8, code: 64 };
    const e1 = await store.patch("m", v1.version, [wall]);
    expect(e1.rects).toEqual([{ x0: 4, y0: 0, x1: 5, y1: 8 }]);
    expect(store.latestVersion("m")).toBe(e1.to.version);
    expect(e1.to.ephemeral).toBe(false);
    const stale = await store.patch("m", v1.version, [wall]).catch((e) => e);
    expect(stale).toBeInstanceOf(ServiceError);
    expect(stale.code).toBe("FAILED_PRECONDITION");
    expect(stale.message).toBe(
      `map.version: "${v1.version}" is not the latest version of "m" (latest is ${e1.to.version})`,
    );
    // Undoing the wall brings back the first version's content: the cached version is reused, not rebuilt.
    const e2 = await store.patch("m", "", [{ ...wall, code: ".".charCodeAt(0) }]);
    expect(e2.to).toBe(v1);
    expect(store.latestVersion("m")).toBe(v1.version);
    off();
    await store.patch("m", "", [wall]);
    expect(seen).toEqual([`m ${v1.version}->${e1.to.version}`, `m ${e1.to.version}->${v1.version}`]);
    expect(store.cachedVersions).toBe(2);
  });

  test("delete forgets the map, tells listeners, drops its layers and removes its file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "arcpath-store-"));
    const store = new MapStore({ dataDir: dir, budgetBytes: 1e9, limits: DEFAULT_LIMITS });
    const events: string[] = [];
    store.onEvict((keys) => events.push(...keys.map((k) => `evict ${k}`)));
    store.onDelete((id) => events.push(`delete ${id}`));
    const mv = await putText(store, "gone", open(8, 8));
    const held = store.pin(mv);
    const bytes = store.bytes;
    expect(await store.delete("gone")).toBe(true);
    expect(events[0]).toBe("delete gone");
    expect(events.slice(1)).toEqual([...mv.layers.values()].map((l) => `evict ${l.key}`));
    expect(store.bytes).toBe(bytes - mv.bytes);
    expect(store.ids()).toEqual([]);
    expect(existsSync(join(dir, "maps", "gone.json"))).toBe(false);
    await expect(store.get("gone", "")).rejects.toThrow('map.id: no map "gone"');
    expect(mv.layers.size).toBeGreaterThan(0); // the pinned request keeps what it holds
    held();
    expect(await store.delete("gone")).toBe(false);
  });
});
