/**
 * Distributed mode, a replica lost or drained, with real processes on loopback: a real redis-server, three
 * arcpath replicas on it and nginx running the shipped deploy/nginx/arcpath.conf in front of them; the client
 * talks to nginx only (the metrics listener tells which replica holds a stream).
 *
 * - SIGTERM (a rolling update, a scale-down): the replica's open stream gets its final STATUS "shutdown" and
 *   ends with UNAVAILABLE saying to open it again (an open Fleet likewise); Plans it had already accepted all
 *   finish; it takes no new call. The client opens the stream again through the balancer and gets a path from another replica.
 * - `kill -9` mid-stream: the stream fails (the status nginx gives is logged); the client opens it again
 *   through the balancer and goes on: a path from a surviving replica, replanned when the map is patched.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import * as grpc from "@grpc/grpc-js";
import { loadPathfinder } from "../../src/server/proto.ts";
import { call, callError, ROOT, startServer, type TestServer } from "../helpers/server.ts";
import { startNginx, startRedis, type TestNginx, type TestRedis } from "../helpers/redis.ts";
import { field, openStream, streamsOpen } from "../helpers/distributed.ts";

let redis: TestRedis;
let nginx: TestNginx;
let replicas: TestServer[] = [];
// deno-lint-ignore no-explicit-any
let viaBalancer: any;

beforeAll(async () => {
  redis = await startRedis();
  replicas = await Promise.all([0, 1, 2].map(() =>
    startServer([
      "--no-demo",
      "--workers",
      "1",
      "--store",
      redis.url,
      "--metrics-listen",
      "127.0.0.1:0",
    ])
  ));
  const n = await startNginx(ROOT, replicas.map((s) => s.port));
  if (!n) throw new Error("these tests need nginx: install it with `apt-get install -y nginx`");
  nginx = n;
  const { Client } = loadPathfinder();
  viaBalancer = new Client(`127.0.0.1:${nginx.rrPort}`, grpc.credentials.createInsecure());
}, 60_000);
afterAll(async () => {
  viaBalancer?.close();
  nginx?.stop();
  await Promise.all(replicas.map((s) => s.stop()));
  await redis?.kill().catch(() => {});
});

/** A square maze of long corridors (a GRID plan across it takes tens of milliseconds). */
function serpentine(n: number): string {
  const rows: string[] = [];
  for (let y = 0; y < n; y++) {
    let r = "";
    for (let x = 0; x < n; x++) {
      const border = x === 0 || y === 0 || x === n - 1 || y === n - 1;
      const wall = y % 4 === 2 && (Math.floor(y / 4) % 2 === 0 ? x < n - 4 : x > 3);
      r += border || wall ? "@" : ".";
    }
    rows.push(r);
  }
  return `type octile\nheight ${n}\nwidth ${n}\nmap\n${rows.join("\n")}\n`;
}

const plan = (id: string) => ({
  map: { id },
  start: { x: 2.5, y: 10.5 },
  goal: { x: 37.5, y: 10.5 },
  planner: "PLANNER_SMOOTH",
});

/** The live replica holding the one stream open (waits for the count to show). */
async function holder(live: TestServer[]): Promise<TestServer> {
  // 30 s at most: three scrapes a round on a loaded machine.
  for (const end = Date.now() + 30_000; Date.now() < end;) {
    const counts = await Promise.all(live.map(streamsOpen));
    const at = counts.findIndex((c) => c > 0);
    if (at >= 0 && counts.filter((c) => c > 0).length === 1) return live[at];
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("no single replica holds the stream");
}

/**
 * Opens a stream through the balancer and reads its first path, as a client does: a call nginx could not place
 * (it sent it on a kept-alive connection to the replica just lost) ends UNAVAILABLE, and is tried again, at most
 * 10 times, 100 ms apart. Any other ending fails the test (without the balancer's error page nginx answered with
 * an HTML page, which the client read as a message frame: RESOURCE_EXHAUSTED "message larger than max").
 */
async function reopen(id: string) {
  for (let attempt = 1;; attempt++) {
    const st = openStream(viaBalancer, plan(id));
    const first = await st.next();
    if (!first && st.closed === "UNAVAILABLE" && attempt < 10) {
      await new Promise((r) => setTimeout(r, 100));
      continue;
    }
    expect(first?.u.kind, `reopened stream (attempt ${attempt}): ${st.error?.message}`).toBe(
      "UPDATE_KIND_INITIAL",
    );
    expect(first!.u.plan.status).toBe("PLAN_STATUS_FOUND");
    return st;
  }
}

describe("a replica lost or drained behind nginx (3 replicas on one Redis)", () => {
  test("SIGTERM: its stream ends UNAVAILABLE saying to reconnect, accepted Plans finish, the client reopens", async () => {
    await call(viaBalancer, "PutMap", { id: "drain", movingai: field() });
    const st = openStream(viaBalancer, plan("drain"));
    expect((await st.next())?.u.kind).toBe("UPDATE_KIND_INITIAL");
    const victim = await holder(replicas);

    // A Fleet open on the victim too.
    const fleet = victim.client.Fleet();
    const fleetEnded = new Promise<grpc.ServiceError | null>((res) => {
      fleet.on("data", () => {});
      fleet.on("error", (e: grpc.ServiceError) => res(e));
      fleet.on("end", () => res(null));
    });
    const fleetOpened = new Promise((res) => fleet.once("data", res));
    fleet.write({ open: { map: { id: "drain" } } });
    await fleetOpened;

    // Six Plans queued on the victim's single worker; once the first is answered, SIGTERM.
    await call(victim.client, "PutMap", { id: "maze", movingai: serpentine(201) });
    const mazePlan = { map: { id: "maze" }, start: { x: 2.5, y: 1.5 }, goal: { x: 2.5, y: 198.5 } };
    let answered = 0;
    let answeredAtSignal = -1;
    const plans = Array.from(
      { length: 6 },
      () =>
        call(victim.client, "Plan", { ...mazePlan, planner: "PLANNER_GRID" }).then((r) => {
          answered++;
          return r;
        }),
    );
    await plans[0];
    answeredAtSignal = answered;
    victim.proc.kill("SIGTERM");
    // A call made while it drains is refused (the stream's end tells when the drain has begun).
    // deno-lint-ignore no-explicit-any
    let last: any = null;
    while (st.closed === null) last = (await st.next(1000))?.u ?? last;
    const answeredAtRefusal = answered;
    const refused = await callError(victim.client, "Plan", { ...mazePlan, planner: "PLANNER_GRID" });
    expect(refused.code).toBe(grpc.status.UNAVAILABLE);
    const results = await Promise.allSettled(plans);
    console.log(
      `distributed drain: a new call refused while ${
        6 - answeredAtRefusal
      } accepted Plans were still pending; ` +
        `${6 - answeredAtSignal} of 6 accepted Plans still queued or running at SIGTERM; ` +
        `answered after it: ${results.filter((r) => r.status === "fulfilled").length - answeredAtSignal}`,
    );
    expect(answeredAtSignal).toBeLessThan(6);
    for (const r of results) {
      expect(r.status, r.status === "rejected" ? String(r.reason) : "").toBe("fulfilled");
      expect((r as PromiseFulfilledResult<{ status: string }>).value.status).toBe("PLAN_STATUS_FOUND");
    }

    // The stream: a final STATUS "shutdown", then UNAVAILABLE telling the client to open it again.
    for (let u = await st.next(); u; u = await st.next()) last = u.u;
    expect(last?.kind).toBe("UPDATE_KIND_STATUS");
    expect(last?.status).toBe("shutdown");
    expect(st.closed).toBe("UNAVAILABLE");
    expect(st.error!.details).toContain("open the stream again");
    const fleetError = await fleetEnded;
    expect(fleetError?.code).toBe(grpc.status.UNAVAILABLE);
    expect(fleetError?.details).toContain("open the fleet again");

    // The drained replica takes no new call; through the balancer the stream opens on another one.
    await new Promise<void>((res) =>
      victim.proc.exitCode !== null ? res() : victim.proc.once("exit", () => res())
    );
    expect((await callError(victim.client, "ListMaps", {})).code).toBe(grpc.status.UNAVAILABLE);
    replicas = replicas.filter((s) => s !== victim);
    const again = await reopen("drain");
    expect(replicas).toContain(await holder(replicas));
    again.stream.end();
  });

  test("kill -9 mid-stream: the client reopens through the balancer and goes on (path, then a replan)", async () => {
    expect(replicas.length).toBe(2);
    await call(viaBalancer, "PutMap", { id: "lost", movingai: field() });
    const st = openStream(viaBalancer, plan("lost"));
    expect((await st.next())?.u.kind).toBe("UPDATE_KIND_INITIAL");
    const victim = await holder(replicas);
    victim.proc.kill("SIGKILL");
    while (st.closed === null) await st.next(1000);
    console.log(
      `distributed: a replica SIGKILLed under a stream; through nginx the client saw ${st.closed}: ` +
        `${st.error?.details}`,
    );
    expect(st.closed).not.toBe("OK");
    replicas = replicas.filter((s) => s !== victim);

    // What a client does: open the stream again through the balancer with the same request (its pose now as
    // the start); the survivor answers with a path and replans it when the map is patched.
    const again = await reopen("lost");
    const patched = await call(viaBalancer, "PatchMap", {
      map: { id: "lost" },
      edits: [{ x: 20, y: 1, width: 1, height: 16, tile: "@" }],
    });
    let next = await again.next();
    while (next && next.u.kind === "UPDATE_KIND_REFINED") next = await again.next();
    expect(next?.u.kind).toBe("UPDATE_KIND_REPLANNED");
    expect(next!.u.plan.map_version).toBe(patched.version);
    again.stream.end();
  });
});
