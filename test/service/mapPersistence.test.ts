/**
 * Map files on their own: a written version reads back to the same content, writes leave no temporary
 * files, damaged or tampered files are refused, removal tolerates a missing file, and ids are checked.
 */
import { describe, expect, test } from "vitest";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_LIMITS, MapStore } from "../../src/service/mapStore.ts";
import { checkMapId, encodeMap, encodeMapBytes, MapFiles } from "../../src/service/mapPersistence.ts";
import { movingAiTerrain, withOverrides } from "../../src/maps/terrain.ts";
import type { MapVersion } from "../../src/service/mapCache.ts";
import { ServiceError } from "../../src/service/errors.ts";

const TEXT = "type octile\nheight 3\nwidth 4\nmap\n..@.\n.T..\n....\n";

/** A stored version of a small map with one terrain override, from a store without a data directory. */
async function sample() {
  const store = new MapStore({ dataDir: null, budgetBytes: 1e9, limits: DEFAULT_LIMITS });
  const terrain = [{ code: "T".charCodeAt(0), cost: 3, impassable: false, road: false }];
  return await store.put("small", store.parse({ kind: "movingai", text: TEXT }, terrain), terrain);
}

describe("MapFiles", () => {
  test("a written version reads back with the same tiles, terrain and version, leaving only the final file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "arcpath-files-"));
    const files = new MapFiles(dir, DEFAULT_LIMITS);
    const mv = await sample();
    await files.write(mv);
    await files.write(mv); // a rewrite replaces the file
    expect(readdirSync(join(dir, "maps"))).toEqual(["small.json"]);
    const paths: string[] = [];
    for await (const p of files.paths()) paths.push(p);
    expect(paths).toEqual([files.path("small")]);
    const back = files.decode((await files.readText(files.path("small")))!);
    expect(back.id).toBe("small");
    expect(back.map.width).toBe(4);
    expect(back.map.height).toBe(3);
    expect([...back.map.tiles]).toEqual([...mv.map.tiles]);
    expect([...back.map.terrain.cost]).toEqual([...mv.map.terrain.cost]);
    expect([...back.map.terrain.impassable]).toEqual([...mv.map.terrain.impassable]);
    expect(back.terrainInput).toEqual(mv.terrainInput);
  });

  test("a missing file reads as null; removing one is not an error", async () => {
    const dir = mkdtempSync(join(tmpdir(), "arcpath-files-"));
    const files = new MapFiles(dir, DEFAULT_LIMITS);
    expect(await files.readText(files.path("nothing"))).toBeNull();
    await files.remove("nothing");
    const mv = await sample();
    await files.write(mv);
    await files.remove("small");
    expect(readdirSync(join(dir, "maps"))).toEqual([]);
  });

  test("damaged, tampered or oversized files are refused", async () => {
    const dir = mkdtempSync(join(tmpdir(), "arcpath-files-"));
    const files = new MapFiles(dir, DEFAULT_LIMITS);
    await files.write(await sample());
    const text = readFileSync(files.path("small"), "utf8");
    expect(() => files.decode(text.slice(0, 20))).toThrow(SyntaxError);
    const rec = JSON.parse(text);
    expect(() => files.decode(JSON.stringify({ ...rec, version: "0000000000000000" }))).toThrow(
      /content hash differs from the recorded version 0000000000000000/,
    );
    expect(() => files.decode(JSON.stringify({ ...rec, terrain: { ...rec.terrain, road: [0] } }))).toThrow(
      /terrain table must have 256 entries/,
    );
    expect(() => files.decode(JSON.stringify({ ...rec, id: ".." }))).toThrow(/id: must be 1-128 characters/);
    const small = new MapFiles(dir, { maxWidth: 2, maxHeight: 10, maxTiles: 100 });
    expect(() => small.decode(text)).toThrow(/width 4 exceeds the limit 2/);
    // A store loading the directory skips the bad file and says so.
    writeFileSync(join(dir, "maps", "bad.json"), "{");
    const logged: string[] = [];
    const store = new MapStore({
      dataDir: dir,
      budgetBytes: 1e9,
      limits: DEFAULT_LIMITS,
      log: (fields, msg) => logged.push(`${msg} ${String(fields.path)}`),
    });
    expect(await store.loadPersisted()).toBe(1);
    expect(store.ids()).toEqual(["small"]);
    expect(logged).toContain(`skipping unreadable persisted map ${join(dir, "maps", "bad.json")}`);
  });

  test("the file's bytes are the record's text as UTF-8, byte for byte", () => {
    for (const side of [1, 3, 64]) {
      const tiles = new Uint8Array(side * side).map((_, i) => (i % 7 === 0 ? 64 : 46 + (i % 3)));
      const terrainInput = [{ code: 47, cost: 2.5, impassable: false, road: true }];
      const terrain = withOverrides(movingAiTerrain(), terrainInput);
      const mv = {
        id: 'tenants/t\u00e9/x"y',
        version: "0123456789abcdef",
        map: { width: side, height: side, tiles, terrain },
        terrainInput,
      } as unknown as MapVersion;
      expect(encodeMapBytes(mv)).toEqual(new TextEncoder().encode(encodeMap(mv)));
    }
  });

  test("map ids are 1-128 characters of [A-Za-z0-9._-], never . or ..", () => {
    for (const ok of ["a", "A.b_c-9", "x".repeat(128), "..."]) {
      expect(() => checkMapId(ok, "map.id")).not.toThrow();
    }
    for (const bad of ["", ".", "..", "a/b", "a b", "x".repeat(129), "é"]) {
      const err = (() => {
        try {
          checkMapId(bad, "map.id");
        } catch (e) {
          return e as ServiceError;
        }
      })();
      expect(err?.code).toBe("INVALID_ARGUMENT");
      expect(err?.message).toBe(
        `map.id: must be 1-128 characters of [A-Za-z0-9._-], got ${
          JSON.stringify(bad.length > 80 ? bad.slice(0, 77) + "..." : bad)
        }`,
      );
    }
  });
});
