/**
 * Distributed mode end to end, with real processes on loopback: a real redis-server (append-only) and three
 * arcpath replicas started with `--store redis://127.0.0.1:PORT`. Upload on A, plan on B, patch on C: a stream
 * open on A replans within 100 ms; 3 replicas x 100 concurrent unconditional patches of distinct tiles all land
 * in the latest version (checked on every replica and in Redis itself); conditional patches racing from the
 * three replicas: exactly one wins; a delete reaches every replica; Redis killed: PatchMap UNAVAILABLE naming
 * the store, Plan on a cached version still answers; Redis restarted on its append-only file: writes work again
 * without restarting a replica, and the acknowledged version is still the latest. With nginx installed, calls
 * through the shipped deploy/nginx/arcpath.conf (grpc_pass) reach every replica round-robin, and the
 * map-affine upstream sends one map's calls to one replica.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import * as grpc from "@grpc/grpc-js";
import { Redis } from "ioredis";
import { loadPathfinder } from "../../src/server/proto.ts";
import { call, callError, ROOT, startServer, type TestServer } from "../helpers/server.ts";
import { ensureBinary, startNginx, startRedis, type TestNginx, type TestRedis } from "../helpers/redis.ts";
import { field, openStream } from "../helpers/distributed.ts";
import { waitUntil } from "../helpers/waitFor.ts";

let redis: TestRedis;
let a: TestServer, b: TestServer, c: TestServer;
let redisPort = 0;
beforeAll(async () => {
  redis = await startRedis();
  redisPort = redis.port;
  [a, b, c] = await Promise.all(
    [0, 1, 2].map(() => startServer(["--no-demo", "--workers", "1", "--store", redis.url])),
  );
}, 60_000);
afterAll(async () => {
  await Promise.all([a, b, c].map((s) => s?.stop()));
  await redis?.kill().catch(() => {});
});

const plan = (id: string) => ({
  map: { id },
  start: { x: 2.5, y: 10.5 },
  goal: { x: 37.5, y: 10.5 },
  planner: "PLANNER_SMOOTH",
});

describe("distributed mode (3 replicas on one Redis)", () => {
  test("upload on A, plan on B, patch on C: a stream on A replans within 100 ms", async () => {
    const up = await call(a.client, "PutMap", { id: "shared", movingai: field() });
    const onB = await call(b.client, "Plan", plan("shared"));
    expect(onB.status).toBe("PLAN_STATUS_FOUND");
    expect(onB.map_version).toBe(up.version);

    const st = openStream(a.client, plan("shared"));
    expect((await st.next())!.u.kind).toBe("UPDATE_KIND_INITIAL");
    expect((await st.next())!.u.kind).toBe("UPDATE_KIND_REFINED");
    // A wall across the straight path, with a gap at the bottom.
    const sent = performance.now();
    const patched = await call(c.client, "PatchMap", {
      map: { id: "shared" },
      edits: [{ x: 20, y: 1, width: 1, height: 16, tile: "@" }],
    });
    const acked = performance.now();
    const next = await st.next(5000);
    expect(next, "no update on A after the patch on C").not.toBeNull();
    expect(next!.u.kind).toBe("UPDATE_KIND_REPLANNED");
    expect(next!.u.plan.map_version).toBe(patched.version);
    const sinceAck = next!.at - acked;
    console.log(
      `distributed: REPLANNED on A ${sinceAck.toFixed(1)} ms after C acknowledged the patch ` +
        `(${(next!.at - sent).toFixed(1)} ms after it was sent)`,
    );
    expect(sinceAck).toBeLessThan(100);
    st.stream.end();
    // B plans on the new version without being told by the client.
    const after = await call(b.client, "Plan", plan("shared"));
    expect(after.map_version).toBe(patched.version);
  });

  test("3 replicas x 100 concurrent unconditional patches of distinct tiles: all 300 edits in the latest", async () => {
    const up = await call(a.client, "PutMap", { id: "storm", movingai: field() });
    const tiles: { x: number; y: number }[] = [];
    // 300 distinct interior tiles (rows 1-18, columns 1-38 hold 684); the test checks one left untouched.
    for (let i = 0; i < 300; i++) tiles.push({ x: 1 + (i % 38), y: 1 + Math.floor(i / 38) });
    const replicas = [a, b, c];
    const acks = await Promise.all(
      tiles.map((t, i) =>
        call(replicas[i % 3].client, "PatchMap", { map: { id: "storm" }, edits: [{ ...t, tile: "@" }] })
      ),
    );
    expect(new Set(acks.map((r) => r.version)).size).toBe(300);
    const infos = await Promise.all(replicas.map((s) => call(s.client, "GetMap", { map: { id: "storm" } })));
    for (const info of infos) {
      expect(info.passable_tiles).toBe(up.passable_tiles - 300);
      expect(info.version).toBe(infos[0].version);
    }
    // Redis itself holds that version as the latest, its blob with every edit.
    const r = new Redis({ port: redisPort, host: "127.0.0.1" });
    try {
      expect(await r.hget("arcpath:latest", "storm")).toBe(infos[0].version);
      const blob = JSON.parse((await r.get(`arcpath:v:storm:${infos[0].version}`))!);
      const bytes = Uint8Array.from(atob(blob.tiles), (ch) => ch.charCodeAt(0));
      // Every patched tile is a wall like the border; an untouched interior tile is not.
      expect(tiles.filter((t) => bytes[t.y * 40 + t.x] !== bytes[0])).toEqual([]);
      expect(bytes[15 * 40 + 35]).not.toBe(bytes[0]);
    } finally {
      r.disconnect();
    }
  });

  test("conditional patches racing from three replicas: exactly one wins", async () => {
    const up = await call(a.client, "PutMap", { id: "race", movingai: field() });
    const replicas = [a, b, c, a, b, c, a, b, c];
    const results = await Promise.allSettled(replicas.map((s, i) =>
      call(s.client, "PatchMap", {
        map: { id: "race", version: up.version },
        edits: [{ x: 3 + i, y: 3, tile: "@" }],
      })
    ));
    const ok = results.filter((r) => r.status === "fulfilled");
    const failed = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    expect(ok.length).toBe(1);
    for (const f of failed) {
      expect((f.reason as grpc.ServiceError).code).toBe(grpc.status.FAILED_PRECONDITION);
    }
    const info = await call(c.client, "GetMap", { map: { id: "race" } });
    expect(info.passable_tiles).toBe(up.passable_tiles - 1);
  });

  test("a replica that missed news (its subscription dropped) catches up on reconnect and replans", async () => {
    await call(a.client, "PutMap", { id: "missed", movingai: field() });
    const st = openStream(a.client, plan("missed"));
    expect((await st.next())!.u.kind).toBe("UPDATE_KIND_INITIAL");
    expect((await st.next())!.u.kind).toBe("UPDATE_KIND_REFINED");
    const r = new Redis({ port: redisPort, host: "127.0.0.1" });
    let patched: { version: string };
    try {
      // Drop every replica's subscription, then patch at once: the news goes out before they resubscribe.
      await r.call("CLIENT", "KILL", "TYPE", "pubsub");
      patched = await call(c.client, "PatchMap", {
        map: { id: "missed" },
        edits: [{ x: 20, y: 1, width: 1, height: 16, tile: "@" }],
      });
    } finally {
      r.disconnect();
    }
    const next = await st.next();
    expect(next?.u.kind).toBe("UPDATE_KIND_REPLANNED");
    expect(next!.u.plan.map_version).toBe(patched.version);
    // Usually A missed the news and caught up from the store ("caught up with the map store" in its log); when its
    // resubscription wins the race with the patch the news arrives live. Either way the replan above is the proof.
    // Subscribed again: the next patch's news reaches A live (the wall moved, the gap now at the top).
    const again = await call(c.client, "PatchMap", {
      map: { id: "missed" },
      edits: [{ x: 20, y: 1, width: 1, height: 18, tile: "." }, {
        x: 20,
        y: 3,
        width: 1,
        height: 16,
        tile: "@",
      }],
    });
    let live = await st.next();
    while (live && live.u.kind !== "UPDATE_KIND_REPLANNED") live = await st.next();
    expect(live?.u.plan.map_version).toBe(again.version);
    st.stream.end();
  });

  test("a delete on one replica reaches the others (their streams end)", async () => {
    await call(b.client, "PutMap", { id: "doomed", movingai: field() });
    const st = openStream(a.client, plan("doomed"));
    expect((await st.next())!.u.kind).toBe("UPDATE_KIND_INITIAL");
    expect((await call(c.client, "DeleteMap", { map: { id: "doomed" } })).deleted).toBe(true);
    for (const s of [a, b]) {
      expect((await callError(s.client, "GetMap", { map: { id: "doomed" } })).code).toBe(
        grpc.status.NOT_FOUND,
      );
    }
    // The stream on A ends rather than planning on a deleted map.
    for (let i = 0; i < 30 && st.closed === null; i++) await st.next(1000);
    expect(st.closed).not.toBeNull();
    console.log(`distributed: the stream on A ended with ${st.closed} after the delete on C`);
  });

  test("kill -9 of Redis during a patch storm loses no acknowledged edit", async () => {
    await call(a.client, "PutMap", { id: "crash", movingai: field() });
    const tiles: { x: number; y: number }[] = [];
    for (let i = 0; i < 90; i++) tiles.push({ x: 2 + (i % 30), y: 2 + 2 * Math.floor(i / 30) });
    const replicas = [a, b, c];
    const acked: { x: number; y: number }[] = [];
    const storm = Promise.allSettled(tiles.map(async (t, i) => {
      await new Promise((r) => setTimeout(r, i * 2));
      await call(replicas[i % 3].client, "PatchMap", { map: { id: "crash" }, edits: [{ ...t, tile: "@" }] });
      acked.push(t);
    }));
    // Killed once a few patches are acknowledged (however loaded the machine), the rest still in flight.
    for (const t0 = Date.now(); acked.length < 5 && Date.now() - t0 < 20_000;) {
      await new Promise((r) => setTimeout(r, 2));
    }
    await redis.kill();
    const results = await storm;
    await redis.restart();
    const r = new Redis({ port: redisPort, host: "127.0.0.1" });
    try {
      const latest = await r.hget("arcpath:latest", "crash");
      const blob = JSON.parse((await r.get(`arcpath:v:crash:${latest}`))!);
      const bytes = Uint8Array.from(atob(blob.tiles), (ch) => ch.charCodeAt(0));
      console.log(
        `distributed: Redis SIGKILLed mid-storm: ${acked.length} of 90 patches acknowledged, ` +
          `${results.filter((x) => x.status === "rejected").length} refused; all acknowledged in the latest`,
      );
      expect(acked.length).toBeGreaterThan(0);
      expect(acked.filter((t) => bytes[t.y * 40 + t.x] !== bytes[0])).toEqual([]);
    } finally {
      r.disconnect();
    }
  });

  test(
    "Redis killed: writes UNAVAILABLE naming the store, cached plans go on; restarted: writes resume",
    async () => {
      const before = await call(a.client, "GetMap", { map: { id: "shared" } });
      await call(b.client, "Plan", plan("shared"));
      await redis.kill();
      const down = await callError(a.client, "PatchMap", {
        map: { id: "shared" },
        edits: [{ x: 5, y: 5, tile: "@" }],
      });
      // (On failure, say whether A is alive and what it logged last.)
      const aLog = () => `A exit ${a.proc.exitCode ?? a.proc.signalCode}\n${a.output().slice(-2000)}`;
      expect(down.code, aLog()).toBe(grpc.status.UNAVAILABLE);
      expect(down.details, aLog()).toContain(`map store redis://127.0.0.1:${redisPort}`);
      const put = await callError(c.client, "PutMap", { id: "new-while-down", movingai: field() });
      // (On failure, say what the replica logged for the call.)
      const logged = c.output().split("\n").filter((l) => l.includes("PutMap")).slice(-3).join("\n");
      expect(put.code, `${put.details}\n${logged}`).toBe(grpc.status.UNAVAILABLE);
      const cached = await call(b.client, "Plan", plan("shared"));
      expect(cached.status).toBe("PLAN_STATUS_FOUND");
      expect(cached.map_version).toBe(before.version);

      await redis.restart();
      // The replicas reconnect by themselves; the acknowledged version survived on the append-only file.
      const t0 = Date.now();
      let patched: { version: string } | null = null;
      while (!patched && Date.now() - t0 < 10_000) {
        try {
          patched = await call(a.client, "PatchMap", {
            map: { id: "shared", version: before.version },
            edits: [{ x: 5, y: 5, tile: "@" }],
          });
        } catch (e) {
          expect((e as grpc.ServiceError).code).toBe(grpc.status.UNAVAILABLE);
          await new Promise((r) => setTimeout(r, 100));
        }
      }
      expect(patched, "writes did not resume within 10 s of Redis coming back").not.toBeNull();
      // C may still be reconnecting (it then answers from its cache, as documented): it must catch up by itself.
      let onC = await call(c.client, "Plan", plan("shared"));
      for (const t1 = Date.now(); onC.map_version !== patched!.version && Date.now() - t1 < 5_000;) {
        await new Promise((r) => setTimeout(r, 100));
        onC = await call(c.client, "Plan", plan("shared"));
      }
      expect(onC.map_version).toBe(patched!.version);
    },
    90_000, // its waits add up to ~25 s at worst on a loaded machine
  );
  test("a version A told a client about: B serves it or says UNAVAILABLE, never an older one", async () => {
    const v1 = await call(a.client, "PutMap", { id: "told", movingai: field() });
    // B may still be reconnecting after the previous test's Redis restart (UNAVAILABLE meanwhile): wait for it.
    let onB: { map_version: string } | null = null;
    for (const t0 = Date.now(); !onB && Date.now() - t0 < 10_000;) {
      onB = await call(b.client, "Plan", plan("told")).catch((e: grpc.ServiceError) => {
        expect(e.code, e.details).toBe(grpc.status.UNAVAILABLE);
        return new Promise<null>((r) => setTimeout(() => r(null), 100));
      });
    }
    expect(onB?.map_version).toBe(v1.version);
    // Every replica's subscription dropped: B may miss the news of what A does next, then Redis dies.
    const r = new Redis({ port: redisPort, host: "127.0.0.1" });
    let v2: { version: string };
    try {
      await r.call("CLIENT", "KILL", "TYPE", "pubsub");
      v2 = await call(a.client, "PatchMap", {
        map: { id: "told" },
        edits: [{ x: 20, y: 1, width: 1, height: 16, tile: "@" }],
      });
      await call(a.client, "PutMap", { id: "told-new", movingai: field() });
    } finally {
      r.disconnect();
    }
    await redis.kill();
    try {
      // Named: exactly that version, or UNAVAILABLE (B cannot fetch it) -- never v1.
      const named = await call(b.client, "Plan", {
        ...plan("told"),
        map: { id: "told", version: v2.version },
      })
        .then((p) => p.map_version as string, (e: grpc.ServiceError) => grpc.status[e.code]);
      expect([v2.version, "UNAVAILABLE"]).toContain(named);
      // A map B may never have heard of: UNAVAILABLE (the store cannot say), not NOT_FOUND.
      const unknown = await callError(b.client, "Plan", plan("told-new"));
      expect(unknown.code, unknown.details).toBe(grpc.status.UNAVAILABLE);
      // Not named: B's cached latest (v1 if its news was lost just before Redis died: the documented gap).
      // (UNAVAILABLE if the news came but B had not loaded the new version yet.)
      const latest = await call(b.client, "Plan", plan("told"))
        .then((p) => p.map_version as string, (e: grpc.ServiceError) => grpc.status[e.code]);
      expect([v1.version, v2.version, "UNAVAILABLE"]).toContain(latest);
      const said = { [v1.version]: "its cached older one", [v2.version]: "the new version" }[latest] ??
        latest;
      console.log(
        `distributed: Redis down, B asked for A's version: ${named === v2.version ? "served" : named}; ` +
          `not named: ${said}`,
      );
    } finally {
      await redis.restart();
    }
    // Writes resume on every replica.
    for (const s of [a, b, c]) {
      const t0 = Date.now();
      let ok = false;
      while (!ok && Date.now() - t0 < 10_000) {
        ok = await call(s.client, "PatchMap", { map: { id: "told" }, edits: [{ x: 3, y: 3, tile: "@" }] })
          .then(() => true, () => false);
        if (!ok) await new Promise((res) => setTimeout(res, 100));
      }
      expect(ok, "writes did not resume within 10 s").toBe(true);
    }
  }, 90_000); // its waits add up to ~45 s at worst on a loaded machine
});

const nginxBin = ensureBinary("nginx", "nginx");
describe.skipIf(!nginxBin)("through nginx (deploy/nginx/arcpath.conf, grpc_pass)", () => {
  let nginx: TestNginx | null = null;
  let rrPort = 0;
  let affinePort = 0;
  beforeAll(async () => {
    nginx = await startNginx(ROOT, [a, b, c].map((s) => s.port));
    rrPort = nginx!.rrPort;
    affinePort = nginx!.affinePort;
  }, 60_000);
  afterAll(() => {
    nginx?.stop();
  });

  const count = (s: TestServer) => (s.output().match(/"method":"ListMaps"/g) ?? []).length;

  test("round-robin reaches every replica; map-affine sends one map's calls to one replica", async () => {
    const { Client } = loadPathfinder();
    const rr = new Client(`127.0.0.1:${rrPort}`, grpc.credentials.createInsecure());
    const affine = new Client(`127.0.0.1:${affinePort}`, grpc.credentials.createInsecure());
    try {
      const before = [a, b, c].map(count);
      for (let i = 0; i < 9; i++) await call(rr, "ListMaps", {});
      // Each call's access line is written by the replica that served it, asynchronously (pino): wait for all 9.
      const total = () => [a, b, c].reduce((n, s, i) => n + count(s) - before[i], 0);
      await waitUntil("the 9 round-robin calls' access lines", () => total() >= 9);
      const rrCounts = [a, b, c].map((s, i) => count(s) - before[i]);
      expect(rrCounts.every((n) => n > 0), `round-robin counts ${rrCounts}`).toBe(true);

      const plans = await Promise.all(
        Array.from({ length: 6 }, () => {
          const md = new grpc.Metadata();
          md.set("x-arcpath-map", "shared");
          return new Promise((res, rej) =>
            affine.ListMaps({}, md, (e: Error | null, v: unknown) => e ? rej(e) : res(v))
          );
        }),
      );
      expect(plans.length).toBe(6);
      await waitUntil("the 6 map-affine calls' access lines", () => total() >= 15);
      const affineCounts = [a, b, c].map((s, i) => count(s) - before[i] - rrCounts[i]);
      expect(affineCounts.filter((n) => n > 0).length, `map-affine counts ${affineCounts}`).toBe(1);
      // A whole Plan through the balancer.
      const p = await call(rr, "Plan", plan("shared"));
      expect(p.status).toBe("PLAN_STATUS_FOUND");
    } finally {
      rr.close();
      affine.close();
    }
  });
});
