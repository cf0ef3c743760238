/**
 * Background jump tables (service/mapJumps.ts) with a fake builder and pool: the size threshold, one build per
 * (layer entry, class) however many queries ask, published once under the key workers use, ready afterwards; a
 * failed build is forgotten (the next ask starts another); line planners get the note at once on short queries
 * and wait up to half their budget on long ones; curve planners wait for the build within their budget.
 */
import { afterEach, describe, expect, test } from "vitest";
import type { PassLayer } from "../../src/maps/grid.ts";
import {
  BACKGROUND_JUMP_TILES,
  jumpsInBackground,
  jumpTableKey,
  jumpTablesForQuery,
  jumpTablesInBackground,
  octileDistance,
  PLAIN_NOW_DISTANCE,
  setBackgroundJumpTiles,
} from "../../src/service/mapJumps.ts";
import { straightJumps } from "../../src/search/jumpTables.ts";
import type { MapBuilder } from "../../src/service/mapBuild.ts";
import type { LayerEntry } from "../../src/service/mapCache.ts";
import type { WorkerPool } from "../../src/service/pool.ts";
import { layerOf } from "../helpers/pathCheck.ts";
import { tiledRoomRows } from "../helpers/tiledMap.ts";

afterEach(() => {
  setBackgroundJumpTiles(BACKGROUND_JUMP_TILES);
});

/** A builder whose builds settle when the test says (or fail). */
function fakeBuilder() {
  const calls: number[] = [];
  const pending: { resolve: () => void; reject: (e: unknown) => void }[] = [];
  const builder = {
    jumps(layer: PassLayer, cls: number) {
      calls.push(cls);
      return new Promise((resolve, reject) => {
        pending.push({ resolve: () => resolve(straightJumps(layer, cls)), reject });
      });
    },
  } as unknown as MapBuilder;
  return { builder, calls, pending };
}

function fakePool() {
  const published = new Map<string, unknown>();
  const pool = {
    hasPublished: (k: string) => published.has(k),
    publishTable: (_shared: unknown, key: string, _deps: string[], _bytes: number, data: unknown) => {
      if (published.has(key)) return false;
      published.set(key, data);
      return true;
    },
  } as unknown as WorkerPool;
  return { pool, published };
}

const layer = layerOf(tiledRoomRows(2, 2)); // 64 x 64, uniform cost
const entry = () => ({ key: "m@v/default", layer, regions: new Map() }) as unknown as LayerEntry;

describe("jump tables in the background", () => {
  test("only maps at or over the threshold (and uniform cost)", () => {
    expect(jumpsInBackground(layer)).toBe(false);
    setBackgroundJumpTiles(64 * 64);
    expect(jumpsInBackground(layer)).toBe(true);
    setBackgroundJumpTiles(64 * 64 + 1);
    expect(jumpsInBackground(layer)).toBe(false);
  });

  test("one build however many ask; published once under the workers' key; ready afterwards", async () => {
    const { builder, calls, pending } = fakeBuilder();
    const { pool, published } = fakePool();
    const e = entry();
    const a = jumpTablesInBackground(builder, pool, e, 0.5);
    const b = jumpTablesInBackground(builder, pool, e, 0.5);
    expect(a.ready).toBe(false);
    expect(b.ready).toBe(false);
    expect(calls).toEqual([0.5]);
    pending[0].resolve();
    const bytes = await (a as { done: Promise<number | null> }).done;
    expect(bytes).toBe(4 * 66 * 66); // four one-byte tables a padded cell (the open test is the east table)
    expect([...published.keys()]).toEqual([jumpTableKey("m@v/default", 0.5)]);
    expect(jumpTableKey("m@v/default", 0.5)).toBe("m@v/default#jumps/0.5");
    expect(jumpTablesInBackground(builder, pool, e, 0.5).ready).toBe(true);
    expect(calls).toEqual([0.5]);
  });

  test("a failed build is forgotten: the next ask starts another", async () => {
    const { builder, calls, pending } = fakeBuilder();
    const { pool } = fakePool();
    const e = entry();
    const a = jumpTablesInBackground(builder, pool, e, 1.5) as { done: Promise<number | null> };
    pending[0].reject(new Error("builder died"));
    expect(await a.done).toBeNull();
    jumpTablesInBackground(builder, pool, e, 1.5);
    expect(calls).toEqual([1.5, 1.5]);
  });

  test("short GRID gets the note at once; a curve planner waits for the build within its budget", async () => {
    setBackgroundJumpTiles(64 * 64);
    const { builder, pending } = fakeBuilder();
    const { pool, published } = fakePool();
    const e = entry();
    const note = await jumpTablesForQuery(builder, pool, e, 0.5, "grid", 10, 10_000);
    expect(note).toMatch(
      /jump tables of class 0.5 are being built in the background .* plain 8-connected A\*/,
    );
    let settled = false;
    const waiting = jumpTablesForQuery(builder, pool, e, 0.5, "hybrid", 10, 10_000).then((n) => {
      settled = true;
      return n;
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(settled).toBe(false);
    pending[0].resolve();
    expect(await waiting).toBeUndefined();
    expect(published.size).toBe(1);
    // Published: no note, no wait.
    expect(await jumpTablesForQuery(builder, pool, e, 0.5, "grid", 10, 10_000)).toBeUndefined();
    // A curve planner's wait is bounded by its budget.
    const other = entry();
    const t0 = performance.now();
    expect(await jumpTablesForQuery(builder, pool, other, 0.5, "directional", 10, 30)).toBeUndefined();
    expect(performance.now() - t0).toBeLessThan(10_000);
  });

  test("long GRID waits up to half its budget: no note when the tables come, else the note", async () => {
    setBackgroundJumpTiles(64 * 64);
    const { builder, pending } = fakeBuilder();
    const { pool } = fakePool();
    const long = PLAIN_NOW_DISTANCE + 1;
    // Never built within the wait: the note after it.
    const late = await jumpTablesForQuery(builder, pool, entry(), 0.5, "grid", long, 40);
    expect(late).toMatch(/being built in the background/);
    // Built during the wait: jump points, no note.
    const e = entry();
    const waiting = jumpTablesForQuery(builder, pool, e, 0.5, "smooth", long, 20_000);
    await new Promise((r) => setTimeout(r, 20));
    pending[pending.length - 1].resolve();
    expect(await waiting).toBeUndefined();
  });

  test("octile distance", () => {
    expect(octileDistance(0, 0, 10, 0)).toBe(10);
    expect(octileDistance(0, 0, 3, 4)).toBeCloseTo(4 + 3 * (Math.SQRT2 - 1), 12);
  });
});
