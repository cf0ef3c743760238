/**
 * Graph files (service/graphFiles.ts): a prepared graph written and read back has the same arrays (its trees
 * start empty); a file read against another region table, or with bytes missing, is removed and reads as none;
 * pruning keeps the files of the versions kept and removes the others and leftover temporary files; `settle`
 * waits for writes under way (the map store's close, hence a shutdown, awaits it).
 */
import { afterAll, describe, expect, test } from "vitest";
import { mkdtempSync, readdirSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildPassLayer } from "../../src/maps/layer.ts";
import { parseMovingAi } from "../../src/maps/movingai.ts";
import { buildRegionTable } from "../../src/maps/regionBuild.ts";
import { movingAiTerrain } from "../../src/maps/terrain.ts";
import { AbstractGraphBuild } from "../../src/search/abstractGraphBuild.ts";
import { GraphFiles } from "../../src/service/graphFiles.ts";
import { denoFs } from "../../src/service/mapPersistence.ts";
import { mapText } from "../helpers/movingai.ts";

const LIMITS = { maxWidth: 4096, maxHeight: 4096, maxTiles: 1 << 24 };
const dir = mkdtempSync(join(tmpdir(), "arcpath-graphs-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const layer = buildPassLayer(parseMovingAi(mapText("Berlin_0_256.map"), LIMITS), movingAiTerrain());
const table = buildRegionTable(layer, 0.5);
const built = new AbstractGraphBuild(table, layer, 8).run(null)!;
built.prepare(16, null);
const data = built.toShared();
const extra = {
  sectorRegionStart: table.sectorRegionStart,
  sectorPrint: new Uint32Array(2 * table.sectorsX * table.sectorsY).map((_, i) => i * 7),
  minCost: layer.minCost,
  width: table.width,
};

describe("graph files", () => {
  test("a graph read back equals the one written, trees empty", async () => {
    const files = new GraphFiles(dir);
    const name = files.name("v1", "terrain", "class 0.5");
    expect(files.has(name)).toBe(false);
    await files.write(name, data, extra);
    expect(files.has(name)).toBe(true);
    const back = (await files.read(name, table))!;
    for (const [k, v] of Object.entries(data)) {
      if (k === "treeStep" || k === "treeReady") {
        expect((back[k] as Uint8Array).length).toBe((v as Uint8Array).length);
        expect((back[k] as Uint8Array).every((b) => b === 0)).toBe(true);
      } else if (ArrayBuffer.isView(v)) {
        expect(back[k as keyof typeof back], k).toEqual(v);
        expect((back[k as keyof typeof back] as Uint8Array).buffer).toBeInstanceOf(SharedArrayBuffer);
      } else expect(back[k as keyof typeof back], k).toEqual(v);
    }
    // Another name for another key or version.
    expect(files.name("v1", "terrain", "class 1.5")).not.toBe(name);
    expect(files.name("v2", "terrain", "class 0.5")).not.toBe(name);
  });

  test("a file of another table or cut short is removed and reads as none", async () => {
    const files = new GraphFiles(dir);
    const other = buildRegionTable(layer, 1.5);
    const name = files.name("v3", "terrain", "class 0.5");
    await files.write(name, data, extra);
    const why: string[] = [];
    expect(await files.read(name, other, (w) => why.push(w))).toBeNull();
    expect(why[0]).toMatch(/regions/);
    expect(files.has(name)).toBe(false);
    await files.write(name, data, extra);
    truncateSync(join(dir, "graphs", name), 10_000);
    expect(await files.read(name, table, (w) => why.push(w))).toBeNull();
    expect(why[1]).toMatch(/cut short/);
    expect(files.has(name)).toBe(false);
  });

  test("an earlier version's file read for a later one: the graph and what it keeps; the map line's latest", async () => {
    const files = new GraphFiles(dir);
    const name = files.name("v4", "terrain", "class 0.5");
    await files.write(name, data, extra);
    // No table check beyond the tile count (the later version's table has other regions).
    const kept = (await files.readKept(name, table.regionLocal.length))!;
    expect(kept.graph.distance).toEqual(data.distance);
    expect(kept.graph.nodeTile).toEqual(data.nodeTile);
    expect(kept.sectorRegionStart).toEqual(table.sectorRegionStart);
    expect(kept.sectorPrint).toEqual(extra.sectorPrint);
    expect([kept.minCost, kept.width]).toEqual([layer.minCost, table.width]);
    const why: string[] = [];
    expect(await files.readKept(name, 99, (w) => why.push(w))).toBeNull();
    expect(why[0]).toMatch(/99/);
    expect(files.has(name)).toBe(true);
    expect(await files.readKept("none.graph", 99)).toBeNull();

    expect(await files.latest("map a\nterrain\nclass 0.5")).toBeNull();
    await files.setLatest("map a\nterrain\nclass 0.5", name);
    await files.setLatest("map b\nterrain\nclass 0.5", "other.graph");
    expect(await files.latest("map a\nterrain\nclass 0.5")).toBe(name);
    expect(await files.latest("map b\nterrain\nclass 0.5")).toBe("other.graph");
  });

  test("pruning keeps the versions kept", async () => {
    const files = new GraphFiles(dir);
    const keep = files.name("keep", "terrain", "class 0.5");
    const drop = files.name("drop", "terrain", "class 0.5");
    await files.write(keep, data, extra);
    await files.write(drop, data, extra);
    writeFileSync(join(dir, "graphs", "keep-x.graph.tmp-1-1"), "partial");
    await files.prune(new Set(["keep"]));
    expect(readdirSync(join(dir, "graphs")).filter((f) => f.endsWith(".graph"))).toEqual([keep]);
    expect(readdirSync(join(dir, "graphs")).filter((f) => f.includes(".tmp-"))).toEqual([]);
  });
  test("pruning keeps a stored map's latest graph file, whatever its version, and drops other maps' lines", async () => {
    const files = new GraphFiles(dir);
    const patched = files.name("patched-away", "terrain", "class 0.5");
    const deleted = files.name("deleted-map", "terrain", "class 0.5");
    await files.write(patched, data, extra, "m1\nterrain\nclass 0.5");
    await files.write(deleted, data, extra, "m2\nterrain\nclass 0.5");
    await files.prune(new Set(["keep"]), new Set(["m1"]));
    const left = readdirSync(join(dir, "graphs"));
    expect(left).toContain(patched);
    expect(left).not.toContain(deleted);
    expect(await files.latest("m1\nterrain\nclass 0.5")).toBe(patched);
    expect(await files.latest("m2\nterrain\nclass 0.5")).toBeNull();
  });

  test("settle waits for a write under way (a shutdown keeps what was prepared)", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => release = r);
    // The rename (the step that makes the file appear) waits until the test lets it go.
    const slowFs = {
      ...denoFs,
      rename: (from: string, to: string) => gate.then(() => denoFs.rename(from, to)),
    };
    const files = new GraphFiles(dir, slowFs);
    const name = files.name("v9", "terrain", "class 0.5");
    void files.write(name, data, extra);
    let settled = false;
    const settling = files.settle().then(() => settled = true);
    await new Promise((r) => setTimeout(r, 50));
    expect(settled).toBe(false);
    expect(files.has(name)).toBe(false);
    release();
    await settling;
    expect(files.has(name)).toBe(true);
    await files.settle(); // nothing under way: at once
  });
});
