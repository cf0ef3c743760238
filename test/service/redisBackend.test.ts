/**
 * The Redis backend's subscriber across reconnections, against a scripted Redis on loopback (a few RESP2
 * replies: HELLO refused, INFO, SUBSCRIBE, HGETALL (also inside MULTI/EXEC), +OK to the rest) that can drop a
 * connection the moment it is asked to SUBSCRIBE: the race a real Redis killed right after a replica reconnected
 * produces, which no real server can be made to hit on demand.
 * ioredis's own resubscribe left that promise unhandled and the replica process died of it; the backend now
 * subscribes itself, retries, and catches up once subscribed.
 */
import { afterEach, expect, test } from "vitest";
import { Buffer } from "node:buffer";
import { createServer, type Server, type Socket } from "node:net";
import { RedisBackend } from "../../src/service/redisBackend.ts";
import { DEFAULT_LIMITS } from "../../src/service/mapStore.ts";

/** A RESP bulk string. */
const bulk = (s: string) => `$${Buffer.byteLength(s)}\r\n${s}\r\n`;

/** The commands (first word, upper case) in a chunk of RESP arrays. */
function commands(chunk: string): string[][] {
  const out: string[][] = [];
  const lines = chunk.split("\r\n");
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i].startsWith("*")) continue;
    const n = Number(lines[i].slice(1));
    const args: string[] = [];
    for (let k = 0; k < n; k++) args.push(lines[i + 2 + 2 * k]);
    out.push(args);
    i += 2 * n;
  }
  return out;
}

/** A scripted Redis: `dropOnSubscribe` > 0 drops that many connections when they SUBSCRIBE. */
function fakeRedis() {
  const sockets = new Set<Socket>();
  const state = { dropOnSubscribe: 0, subscribes: 0 };
  const server: Server = createServer((sock) => {
    sockets.add(sock);
    sock.on("close", () => sockets.delete(sock));
    sock.on("error", () => {});
    // A transaction's replies (MULTI ... EXEC), null outside one.
    let queued: string[] | null = null;
    sock.on("data", (d) => {
      for (const [cmd, ...args] of commands(d.toString())) {
        const c = cmd.toUpperCase();
        if (c === "MULTI") {
          queued = [];
          sock.write("+OK\r\n");
          continue;
        }
        if (c === "EXEC") {
          sock.write(`*${queued?.length ?? 0}\r\n${(queued ?? []).join("")}`);
          queued = null;
          continue;
        }
        if (queued && c === "HGETALL") {
          queued.push("*0\r\n");
          sock.write("+QUEUED\r\n");
          continue;
        }
        // No RESP3: ioredis then speaks RESP2, as to Redis 5.
        if (c === "HELLO") sock.write("-ERR unknown command 'HELLO'\r\n");
        else if (c === "INFO") sock.write(bulk("# Server\r\nredis_version:7.0.0\r\nloading:0\r\n"));
        else if (c === "SUBSCRIBE") {
          state.subscribes++;
          if (state.dropOnSubscribe > 0) {
            state.dropOnSubscribe--;
            sock.destroy();
            return;
          }
          sock.write(`*3\r\n${bulk("subscribe")}${bulk(args[0])}:1\r\n`);
        } else if (c === "HGETALL") sock.write("*0\r\n");
        else sock.write("+OK\r\n");
      }
    });
  });
  return {
    state,
    listen: () =>
      new Promise<number>((res) =>
        server.listen(0, "127.0.0.1", () => res((server.address() as { port: number }).port))
      ),
    /** Drops every open connection (Redis restarted). */
    dropAll: () => {
      for (const s of sockets) s.destroy();
    },
    close: () =>
      new Promise<void>((res) => {
        server.close(() => res());
        for (const s of sockets) s.destroy();
      }),
  };
}

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function until(cond: () => boolean, what: string) {
  // 15 s at most: reconnecting (its back-off) and catching up are slower on a loaded machine.
  for (let i = 0; i < 600 && !cond(); i++) await new Promise((r) => setTimeout(r, 25));
  expect(cond(), what).toBe(true);
}

test("a connection lost while resubscribing: no unhandled rejection, subscribed and caught up afterwards", async () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (e: PromiseRejectionEvent) => {
    e.preventDefault();
    unhandled.push(e.reason);
  };
  globalThis.addEventListener("unhandledrejection", onUnhandled);
  cleanup.push(() => Promise.resolve(globalThis.removeEventListener("unhandledrejection", onUnhandled)));

  const redis = fakeRedis();
  const port = await redis.listen();
  cleanup.push(redis.close);
  const backend = new RedisBackend({ url: `redis://127.0.0.1:${port}`, limits: DEFAULT_LIMITS });
  cleanup.push(() => backend.close());
  await backend.connect();
  let resyncs = 0;
  backend.listen(() => {}, () => resyncs++);
  await until(() => resyncs === 1, "caught up once at start");

  // Redis "restarts": the next three SUBSCRIBEs lose their connection before any answer.
  redis.state.dropOnSubscribe = 3;
  const before = redis.state.subscribes;
  redis.dropAll();
  await until(() => redis.state.dropOnSubscribe === 0 && resyncs >= 2, "subscribed and caught up again");
  expect(redis.state.subscribes - before).toBeGreaterThanOrEqual(4);
  expect(unhandled.map(String)).toEqual([]);
});
