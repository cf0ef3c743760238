/**
 * A graph build's finished blocks kept as they go (service/graphPartial.ts): after an interruption the next build
 * of the same skeleton restores the kept chunks (the builders skip them) and the finished graph equals a fresh
 * preparation bit for bit; a torn or altered record is cut off with everything after it, and appending goes on
 * from there; a file of another skeleton is started afresh.
 */
import { afterAll, describe, expect, test } from "vitest";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildPassLayer } from "../../src/maps/layer.ts";
import { parseMovingAi } from "../../src/maps/movingai.ts";
import { buildRegionTable } from "../../src/maps/regionBuild.ts";
import { movingAiTerrain } from "../../src/maps/terrain.ts";
import {
  AbstractGraphBuild,
  buildSkeleton,
  chunkCount,
  graphProgress,
  landmarksInline,
  prepareShare,
} from "../../src/search/abstractGraphBuild.ts";
import { DEFAULT_SAMPLING } from "../../src/search/entranceNodes.ts";
import { PartialGraph } from "../../src/service/graphPartial.ts";
import { mapText } from "../helpers/movingai.ts";
import { graphDigest } from "../helpers/graphDigest.ts";

const LIMITS = { maxWidth: 4096, maxHeight: 4096, maxTiles: 1 << 24 };
const dir = mkdtempSync(join(tmpdir(), "arcpath-partial-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const layer = buildPassLayer(parseMovingAi(mapText("AR0011SR.map"), LIMITS), movingAiTerrain());
const table = buildRegionTable(layer, 0.5);
const chunks = chunkCount(table.regionCount);

/** A fresh skeleton of the table and its chunk flags, as a build starts. */
function start() {
  const progress = graphProgress();
  const skeleton = buildSkeleton(table, layer, 8, DEFAULT_SAMPLING, progress);
  return { progress, skeleton, done: new Uint8Array(new SharedArrayBuffer(chunks)) };
}

describe("partial graph files", () => {
  test("an interrupted build resumes from its kept chunks and ends equal to a fresh preparation", async () => {
    expect(chunks).toBeGreaterThanOrEqual(3);
    const path = join(dir, "a.graph.partial");
    // First run: builder 0 of 2 finishes its share, then the process "dies" (no remove).
    const first = start();
    const a = await PartialGraph.open(path, first.skeleton, first.done);
    expect(a.restored).toBe(0);
    prepareShare(table, layer, first.skeleton, 0, 2, first.progress, null, null, first.done);
    const half = first.done.reduce((n, f) => n + f, 0);
    expect(half).toBe(Math.ceil(chunks / 2));
    expect(await a.flush()).toBe(half);
    expect(await a.flush()).toBe(0);
    await a.close();

    // Second run: the same skeleton placed again; the kept chunks come back and are skipped.
    const second = start();
    const why: string[] = [];
    const b = await PartialGraph.open(path, second.skeleton, second.done, (w) => why.push(w));
    expect(why).toEqual([]);
    expect(b.restored).toBe(half);
    expect(Array.from(second.done)).toEqual(Array.from(first.done));
    let spent = 0, resumed = 0;
    for (let p = 1; p >= 0; p--) {
      const share = prepareShare(
        table,
        layer,
        second.skeleton,
        p,
        2,
        second.progress,
        null,
        null,
        second.done,
      );
      spent += share.spent;
      resumed += share.reused;
    }
    expect(resumed).toBeGreaterThan(table.regionCount * 0.3);
    expect(second.done.every((f) => f === 1)).toBe(true);
    expect(await b.flush()).toBe(chunks - half);
    const graph = landmarksInline(
      table,
      layer,
      { ...second.skeleton, partial: false },
      16,
      spent,
      second.progress,
    );
    const fresh = new AbstractGraphBuild(table, layer, 8).run(null)!;
    fresh.prepare(16, null);
    expect(graphDigest(graph)).toEqual(graphDigest(fresh.toShared()));
    await b.remove();
    expect(() => statSync(path)).toThrow();
  });

  test("a torn or altered record is cut off with what follows; another skeleton's file starts afresh", async () => {
    const path = join(dir, "b.graph.partial");
    const first = start();
    const a = await PartialGraph.open(path, first.skeleton, first.done);
    prepareShare(table, layer, first.skeleton, 0, 1, first.progress, null, null, first.done);
    expect(await a.flush()).toBe(chunks);
    await a.close();
    const whole = readFileSync(path);

    // A byte of the second record's blocks altered: only the first record stays; the file is cut after it.
    const bytes = new Uint8Array(whole);
    const headerEnd = (22 + 4 + new DataView(bytes.buffer).getUint32(22, true) + 7) & ~7;
    const firstLength = new DataView(bytes.buffer).getUint32(headerEnd + 4, true);
    const second = headerEnd + ((16 + firstLength + 7) & ~7);
    bytes[second + 16 + 5] ^= 0xff;
    writeFileSync(path, bytes);
    const again = start();
    const why: string[] = [];
    const b = await PartialGraph.open(path, again.skeleton, again.done, (w) => why.push(w));
    expect(b.restored).toBe(1);
    expect(why[0]).toMatch(/digest differs/);
    expect(statSync(path).size).toBe(second);
    // Appending goes on after the cut: the rest is kept again and a third run restores everything.
    prepareShare(table, layer, again.skeleton, 0, 1, again.progress, null, null, again.done);
    expect(await b.flush()).toBe(chunks - 1);
    await b.close();
    const third = start();
    const c = await PartialGraph.open(path, third.skeleton, third.done);
    expect(c.restored).toBe(chunks);
    expect(third.skeleton.distance).toEqual(first.skeleton.distance);
    await c.close();

    // Cut mid-record (a crash while appending): the torn record goes.
    writeFileSync(path, whole.subarray(0, whole.length - 10));
    const torn = start();
    const d = await PartialGraph.open(path, torn.skeleton, torn.done, (w) => why.push(w));
    expect(d.restored).toBe(chunks - 1);
    expect(why.at(-1)).toMatch(/cut short/);
    await d.close();

    // Another table's skeleton: not used, started afresh.
    const other = buildRegionTable(layer, 1.5);
    const progress = graphProgress();
    const sk = buildSkeleton(other, layer, 8, DEFAULT_SAMPLING, progress);
    const flags = new Uint8Array(new SharedArrayBuffer(chunkCount(other.regionCount)));
    const e = await PartialGraph.open(path, sk, flags, (w) => why.push(w));
    expect(e.restored).toBe(0);
    expect(why.at(-1)).toMatch(/another skeleton/);
    expect(flags.every((f) => f === 0)).toBe(true);
    await e.close();
  });
});
