/**
 * Acknowledged map writes survive: short writes are completed, a full disk fails the write cleanly (the new
 * version never becomes visible, no temporary file stays), file and directory are fsynced before a write is
 * acknowledged, concurrent patches of one map apply in order with the latest on disk, a delete queued behind a
 * patch wins, and temporary files of interrupted writes are swept at start. The file system is injected.
 */
import { describe, expect, test } from "vitest";
import { mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_LIMITS, MapStore } from "../../src/service/mapStore.ts";
import { denoFs, type MapFileHandle, type MapFs } from "../../src/service/mapPersistence.ts";
import { ServiceError } from "../../src/service/errors.ts";

const TEXT = "type octile\nheight 4\nwidth 8\nmap\n........\n........\n........\n........\n";

/** A file system over Deno's that can cut writes short, fail with ENOSPC, slow down, and logs its calls. */
class FakeFs implements MapFs {
  maxWrite = Infinity;
  full = false;
  delayMs = 0;
  readonly log: string[] = [];

  mkdir = (d: string) => denoFs.mkdir(d);
  readDir = (d: string) => denoFs.readDir(d);
  readTextFile = (p: string) => denoFs.readTextFile(p);
  async create(path: string): Promise<MapFileHandle> {
    this.log.push("create");
    const f = await denoFs.create(path);
    return {
      write: async (p: Uint8Array) => {
        await this.#pause();
        if (this.full) {
          this.log.push("ENOSPC");
          throw Object.assign(new Error("No space left on device (os error 28)"), { code: "ENOSPC" });
        }
        const n = await f.write(p.subarray(0, Math.min(p.length, this.maxWrite)));
        this.log.push("write");
        return n;
      },
      sync: async () => {
        await f.sync();
        this.log.push("sync");
      },
      close: () => f.close(),
    };
  }
  async rename(a: string, b: string) {
    await this.#pause();
    await denoFs.rename(a, b);
    this.log.push("rename");
  }
  async remove(p: string) {
    await denoFs.remove(p);
    this.log.push("remove");
  }
  async syncDir(d: string) {
    await this.#pause();
    await denoFs.syncDir(d);
    this.log.push("syncDir");
  }
  #pause() {
    return this.delayMs > 0 ? new Promise((r) => setTimeout(r, this.delayMs)) : Promise.resolve();
  }
}

function setup() {
  const dir = mkdtempSync(join(tmpdir(), "arcpath-durable-"));
  const fs = new FakeFs();
  const store = new MapStore({ dataDir: dir, budgetBytes: 1e9, limits: DEFAULT_LIMITS, fs });
  const parse = () => store.parse({ kind: "movingai", text: TEXT }, []);
  /** A fresh store over the same directory (a restart). */
  const reopen = async () => {
    const again = new MapStore({ dataDir: dir, budgetBytes: 1e9, limits: DEFAULT_LIMITS });
    await again.loadPersisted();
    return again;
  };
  const files = () => readdirSync(join(dir, "maps")).sort();
  return { dir, fs, store, parse, reopen, files };
}

const edit = (x: number, code = 64) => ({ x, y: 0, width: 1, height: 1, code });

describe("map durability", () => {
  test("short writes are completed: the acknowledged version reads back after a restart", async () => {
    const { fs, store, parse, reopen } = setup();
    fs.maxWrite = 7;
    const mv = await store.put("m", parse(), []);
    expect(fs.log.filter((s) => s === "write").length).toBeGreaterThan(10);
    const again = await reopen();
    expect(again.latestVersion("m")).toBe(mv.version);
  });

  test("a write is acknowledged only after the file is fsynced, renamed and the directory fsynced", async () => {
    const { fs, store, parse } = setup();
    let acked = -1;
    await store.put("m", parse(), []).then(() => (acked = fs.log.length));
    const tail = fs.log.slice(fs.log.lastIndexOf("write") + 1);
    expect(tail).toEqual(["sync", "rename", "syncDir"]);
    expect(acked).toBe(fs.log.length);
  });

  test("a full disk fails the write with RESOURCE_EXHAUSTED naming the data directory; nothing changes", async () => {
    const { dir, fs, store, parse, reopen, files } = setup();
    const v1 = await store.put("m", parse(), []);
    fs.full = true;
    const err = await store.patch("m", "", [edit(3)]).catch((e) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect(err.code).toBe("RESOURCE_EXHAUSTED");
    expect(err.message).toContain(join(dir, "maps"));
    expect(err.message).toMatch(/disk full/);
    expect(store.latestVersion("m")).toBe(v1.version);
    expect(store.cachedVersions).toBe(1);
    expect(files()).toEqual(["m.json"]);
    // A new map fails the same way and is not listed.
    const err2 = await store.put("n", parse(), []).catch((e) => e);
    expect(err2.code).toBe("RESOURCE_EXHAUSTED");
    expect(store.ids()).toEqual(["m"]);
    expect(files()).toEqual(["m.json"]);
    // Once there is room again, writes work, and the restart finds what was acknowledged.
    fs.full = false;
    const ev = await store.patch("m", v1.version, [edit(3)]);
    expect((await reopen()).latestVersion("m")).toBe(ev.to.version);
  });

  test("concurrent patches of one map all apply, in order, and the latest is what is on disk", async () => {
    const { fs, store, parse, reopen } = setup();
    const v1 = await store.put("m", parse(), []);
    fs.delayMs = 5;
    const results = await Promise.allSettled([
      store.patch("m", "", [edit(0)]),
      store.patch("m", "", [edit(1)]),
      store.patch("m", v1.version, [edit(2)]), // stale by its turn
      store.patch("m", "", [edit(3)]),
      store.patch("m", "", [edit(4)]),
    ]);
    expect(results.map((r) => r.status)).toEqual([
      "fulfilled",
      "fulfilled",
      "rejected",
      "fulfilled",
      "fulfilled",
    ]);
    expect(((results[2] as PromiseRejectedResult).reason as ServiceError).code).toBe("FAILED_PRECONDITION");
    const last = (results[4] as PromiseFulfilledResult<{ to: { version: string } }>).value.to.version;
    expect(store.latestVersion("m")).toBe(last);
    const latest = await store.get("m", "");
    expect([...latest.map.tiles.subarray(0, 6)]).toEqual([64, 64, 46, 64, 64, 46]);
    expect((await reopen()).latestVersion("m")).toBe(last);
  });

  test("a delete issued while a patch is in flight wins, in memory and after a restart", async () => {
    const { fs, store, parse, reopen, files } = setup();
    await store.put("m", parse(), []);
    fs.delayMs = 10;
    const patched = store.patch("m", "", [edit(0)]);
    const deleted = store.delete("m");
    await patched;
    expect(await deleted).toBe(true);
    expect(store.ids()).toEqual([]);
    expect(files()).toEqual([]);
    expect((await reopen()).ids()).toEqual([]);
  });

  test("temporary files of interrupted writes are removed at start", async () => {
    const { dir, store, parse, reopen, files } = setup();
    await store.put("m", parse(), []);
    writeFileSync(join(dir, "maps", "m.json.tmp-4242-7"), '{"id":');
    writeFileSync(join(dir, "maps", "other.json.tmp-1-1"), "");
    const again = await reopen();
    expect(again.ids()).toEqual(["m"]);
    expect(files()).toEqual(["m.json"]);
  });
});
