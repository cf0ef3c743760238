/**
 * The version cache on its own: the byte budget, LRU eviction order, pins, latest versions that cannot be
 * reloaded, bytes counted for tables built later, and forgetting a map.
 */
import { describe, expect, test } from "vitest";
import { rawTerrain } from "../../src/maps/terrain.ts";
import { type MapVersion, VersionCache } from "../../src/service/mapCache.ts";
import { ServiceError } from "../../src/service/errors.ts";

/** A version record holding `bytes`, with one layer keyed `<id>@<version>/t`. */
function record(cache: VersionCache, id: string, version: string, bytes: number, flags = {}): MapVersion {
  const mv: MapVersion = {
    id,
    version,
    map: { width: 1, height: 1, tiles: new Uint8Array(1), terrain: rawTerrain() },
    terrainInput: [],
    builtin: false,
    ephemeral: false,
    layers: new Map(),
    overrideLayers: new Map(),
    pins: 0,
    lastUsed: cache.tick(),
    bytes,
    buildMicros: 0,
    ...flags,
  };
  mv.layers.set("t", {
    key: `${id}@${version}/t`,
    layer: null!,
    regions: new Map(),
    terrain: mv.map.terrain,
  });
  return mv;
}

/** Adds a version and makes it the latest of its id, as the store does. */
function addLatest(cache: VersionCache, mv: MapVersion): MapVersion {
  cache.add(mv);
  cache.setLatest(mv.id, mv.version);
  return mv;
}

describe("VersionCache", () => {
  test("evicts least recently used versions first, only as many as the newcomer needs", () => {
    const cache = new VersionCache(300, true);
    const evicted: string[] = [];
    cache.onEvict((keys) => evicted.push(...keys));
    const a = addLatest(cache, record(cache, "a", "1", 100));
    addLatest(cache, record(cache, "b", "1", 100));
    addLatest(cache, record(cache, "c", "1", 100));
    expect(cache.bytes).toBe(300);
    cache.touch(a); // b is now the least recently used
    addLatest(cache, record(cache, "d", "1", 100));
    expect(evicted).toEqual(["b@1/t"]);
    expect(cache.size).toBe(3);
    expect(cache.bytes).toBe(300);
    expect(cache.peek("b", "1")).toBeUndefined();
    expect(cache.peek("a", "1")).toBe(a);
    // b's latest version is still known (it is reloadable), so the id stays listed but not cached.
    expect(cache.ids()).toEqual(["a", "b", "c", "d"]);
    expect(cache.list().map((mv) => mv.id)).toEqual(["a", "c", "d"]);
    // A newcomer twice the size of one version evicts the two least recently used: c, then a (touched before
    // d was made).
    addLatest(cache, record(cache, "e", "1", 200));
    expect(evicted).toEqual(["b@1/t", "c@1/t", "a@1/t"]);
    expect(cache.bytes).toBe(300);
  });

  test("pinned versions are never evicted; unpinning twice counts once", () => {
    const cache = new VersionCache(200, true);
    const a = addLatest(cache, record(cache, "a", "1", 100));
    const unpin = cache.pin(a);
    const unpinAgain = cache.pin(a);
    addLatest(cache, record(cache, "b", "1", 100));
    const err = (() => {
      try {
        addLatest(cache, record(cache, "c", "1", 150));
      } catch (e) {
        return e;
      }
    })() as ServiceError;
    expect(err).toBeInstanceOf(ServiceError);
    expect(err.code).toBe("RESOURCE_EXHAUSTED");
    expect(err.message).toBe(
      "map: needs 150 bytes of tables but only 100 of the 200-byte map memory budget can be freed",
    );
    // b was evicted trying; a (pinned) was not, and the failed newcomer is not cached.
    expect(cache.peek("a", "1")).toBe(a);
    expect(cache.peek("b", "1")).toBeUndefined();
    expect(cache.peek("c", "1")).toBeUndefined();
    expect(cache.bytes).toBe(100);
    unpin();
    unpin();
    expect(a.pins).toBe(1);
    unpinAgain();
    expect(a.pins).toBe(0);
    addLatest(cache, record(cache, "c", "1", 150));
    expect(cache.peek("a", "1")).toBeUndefined();
  });

  test("a latest version that cannot be reloaded is kept; an older one is not", () => {
    // Not reloadable: no data directory.
    const cache = new VersionCache(250, false);
    const m1 = addLatest(cache, record(cache, "m", "1", 100));
    const m2 = addLatest(cache, record(cache, "m", "2", 100)); // m@1 is now old
    addLatest(cache, record(cache, "n", "1", 100));
    expect(cache.peek("m", "1")).toBeUndefined();
    expect(cache.peek("m", "2")).toBe(m2);
    expect(m1.pins).toBe(0);
    // Every remaining version is the latest of its map: nothing can go.
    expect(() => addLatest(cache, record(cache, "o", "1", 100))).toThrow(/can be freed/);
    // Reloadable, but built-in and ephemeral latest versions are kept all the same.
    const disk = new VersionCache(250, true);
    addLatest(disk, record(disk, "b", "1", 100, { builtin: true }));
    addLatest(disk, record(disk, "e", "1", 100, { ephemeral: true }));
    expect(() => addLatest(disk, record(disk, "x", "1", 100))).toThrow(/can be freed/);
  });

  test("bytes built later count against the budget only while the version is cached", () => {
    const cache = new VersionCache(1000, true);
    const a = addLatest(cache, record(cache, "a", "1", 100));
    cache.account(a, 50);
    expect(a.bytes).toBe(150);
    expect(cache.bytes).toBe(150);
    const loose = record(cache, "b", "1", 100);
    cache.account(loose, 50); // being built, not added yet
    expect(loose.bytes).toBe(150);
    expect(cache.bytes).toBe(150);
    addLatest(cache, loose);
    expect(cache.bytes).toBe(300);
  });

  test("forgetting a map unlists it; dropping its versions frees their bytes and reports their layers", () => {
    const cache = new VersionCache(1000, true);
    const evicted: string[] = [];
    cache.onEvict((keys) => evicted.push(...keys));
    addLatest(cache, record(cache, "a", "1", 100));
    addLatest(cache, record(cache, "a", "2", 100));
    addLatest(cache, record(cache, "b", "1", 100));
    expect(cache.forgetLatest("a")).toBe(true);
    expect(cache.forgetLatest("a")).toBe(false);
    expect(cache.latest("a")).toBeUndefined();
    expect(cache.ids()).toEqual(["b"]);
    expect(cache.bytes).toBe(300);
    cache.dropVersions("a");
    expect(evicted.sort()).toEqual(["a@1/t", "a@2/t"]);
    expect(cache.bytes).toBe(100);
    expect(cache.size).toBe(1);
  });
});
