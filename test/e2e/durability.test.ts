/**
 * End-to-end over real gRPC: kill -9 during storms of concurrent PatchMaps and DeleteMaps on the same maps
 * never loses an acknowledged write. Each cycle uploads maps, fires 8 unconditional patches per map (each marks
 * its own tile) with a DeleteMap behind them on every other map, SIGKILLs the server (once half the answers are
 * in on odd cycles, once all are on even ones), and restarts it on the same data directory: every acknowledged
 * patch is in the map's file and the version served, every acknowledged deletion stays deleted, and no
 * temporary file remains; ListMaps during the storm never fails NOT_FOUND. The server's `--test-write-jitter-ms` delays each file rename at random, so writes
 * are in flight long enough to race (without the per-map write queue, this loses patches and revives deleted
 * maps in every run).
 */
import { afterAll, describe, expect, test } from "vitest";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { call, callError, startServer, type TestServer } from "../helpers/server.ts";

const CYCLES = 5;
const MAPS = 6;
const PATCHES = 8;
const SIZE = 32;
const TEXT = `type octile\nheight ${SIZE}\nwidth ${SIZE}\nmap\n${(".".repeat(SIZE) + "\n").repeat(SIZE)}`;

let current: TestServer | null = null;
afterAll(async () => {
  await current?.stop();
});

/** What the client was told about one map. */
interface Acked {
  patched: Set<number>; // columns of row 0 whose patch was acknowledged
  deleteSent: boolean;
  deleteAcked: boolean;
}

function killNow(s: TestServer): Promise<void> {
  return new Promise((res) => {
    s.client.close();
    if (s.proc.exitCode !== null || s.proc.signalCode !== null) return res();
    s.proc.once("exit", () => res());
    s.proc.kill("SIGKILL");
  });
}

/** Row 0 of a map file's tiles, or null if there is no file. */
function fileRow(dir: string, id: string): { version: string; row: Uint8Array } | null {
  const path = join(dir, "maps", `${id}.json`);
  if (!existsSync(path)) return null;
  const rec = JSON.parse(readFileSync(path, "utf8"));
  return { version: rec.version, row: Buffer.from(rec.tiles, "base64").subarray(0, SIZE) };
}

async function checkAll(s: TestServer, dir: string, acked: Map<string, Acked>) {
  expect(readdirSync(join(dir, "maps")).filter((n) => n.includes(".tmp"))).toEqual([]);
  for (const [id, a] of acked) {
    const file = fileRow(dir, id);
    if (a.deleteAcked) {
      expect(file, `${id} was deleted`).toBeNull();
      expect((await callError(s.client, "GetMap", { map: { id } })).code).toBe(5); // NOT_FOUND
      continue;
    }
    if (a.deleteSent && file === null) continue; // the delete ran but its answer was lost to the kill
    expect(file, `${id} must exist`).not.toBeNull();
    for (const x of a.patched) expect(file!.row[x], `${id}: acknowledged patch of column ${x}`).toBe(64);
    const info = await call(s.client, "GetMap", { map: { id } });
    expect(info.version).toBe(file!.version);
  }
}

describe("durability under kill -9", () => {
  test(`${CYCLES} kill -9 cycles during patch and delete storms lose no acknowledged write`, async () => {
    const dir = mkdtempSync(join(tmpdir(), "arcpath-durable-e2e-"));
    const acked = new Map<string, Acked>();
    let ackedOps = 0;
    for (let cycle = 0; cycle <= CYCLES; cycle++) {
      current = await startServer(["--no-demo", "--workers", "1", "--test-write-jitter-ms", "20"], dir, {
        logLevel: "warn",
      });
      const s = current;
      await checkAll(s, dir, acked);
      if (cycle === CYCLES) break;
      const ids = Array.from({ length: MAPS }, (_, k) => `c${cycle}m${k}`);
      for (const id of ids) {
        await call(s.client, "PutMap", { id, movingai: TEXT });
        acked.set(id, { patched: new Set(), deleteSent: false, deleteAcked: false });
      }
      const ops: Promise<unknown>[] = [];
      let answered = 0;
      let killed: Promise<void> | null = null;
      const total = MAPS * PATCHES + MAPS / 2;
      const done = () => {
        if (++answered >= (cycle % 2 === 1 ? total / 2 : total) && !killed) killed = killNow(s);
      };
      ids.forEach((id, k) => {
        const a = acked.get(id)!;
        for (let x = 0; x < PATCHES; x++) {
          const req = { map: { id }, edits: [{ x, y: 0, width: 1, height: 1, tile: "@" }] };
          ops.push(call(s.client, "PatchMap", req).then(() => a.patched.add(x), () => {}).finally(done));
          if (k % 2 === 1 && x === PATCHES - 1) {
            a.deleteSent = true;
            ops.push(
              call(s.client, "DeleteMap", { map: { id } }).then((r) => {
                if (r.deleted) a.deleteAcked = true;
              }, () => {}).finally(done),
            );
          }
        }
      });
      // ListMaps while maps are deleted under it lists the rest (it failed NOT_FOUND when a map vanished mid-list).
      const listed: number[] = [];
      for (let i = 0; i < 3; i++) {
        ops.push(call(s.client, "ListMaps", {}).then(() => {}, (e) => listed.push(e.code)));
      }
      await Promise.all(ops);
      expect(listed.filter((code) => code === 5)).toEqual([]);
      await (killed ?? killNow(s));
      ackedOps += [...acked.values()].reduce((n, a) => n + a.patched.size + (a.deleteAcked ? 1 : 0), 0);
    }
    // The storms really raced the kills: some writes were acknowledged, some deletions too.
    expect(ackedOps).toBeGreaterThan(0);
    expect([...acked.values()].some((a) => a.deleteAcked)).toBe(true);
    await current?.stop();
    current = null;
  }, 300_000);
});
