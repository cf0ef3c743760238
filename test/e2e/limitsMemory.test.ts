/**
 * Memory under hostile input over real gRPC: gzip-compressed messages that inflate past the message limit (the
 * red team's 50 frames of 64 KB took the server past 6 GB) are refused as they inflate, and the server's resident
 * memory stays flat. And resident memory follows `--map-memory-mb` when many maps are put and planned on (the red
 * team saw ~4.5x the budget): evicted versions' tables are freed, in the workers too.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import * as grpc from "@grpc/grpc-js";
import { readFileSync } from "node:fs";
import { loadPathfinder } from "../../src/server/proto.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer(["--no-demo"]);
}, 120_000);
afterAll(async () => {
  await srv?.stop();
});

/** Resident memory of the server in MB (Linux /proc). */
const rssMb = () =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${srv.proc.pid}/status`, "utf8"))![1]) / 1024;

/** A Moving AI map of `side` x `side`: a border and a sprinkling of walls that differ with `seed`. */
function sprinkled(side: number, seed: number): string {
  const rows: string[] = [];
  for (let y = 0; y < side; y++) {
    let r = "";
    for (let x = 0; x < side; x++) {
      const edge = x === 0 || y === 0 || x === side - 1 || y === side - 1;
      r += edge || (x * 7 + y * 13 + seed) % 97 === 0 ? "@" : ".";
    }
    rows.push(r);
  }
  return `type octile\nheight ${side}\nwidth ${side}\nmap\n${rows.join("\n")}\n`;
}

describe("resident memory against the map budget", () => {
  test(
    "20 maps of 512x512 put and planned at --map-memory-mb 32: RSS flat once the cache is full",
    async () => {
      const s = await startServer(["--no-demo", "--map-memory-mb", "32", "--workers", "2"], undefined, {
        logLevel: "warn",
      });
      try {
        const rss = () =>
          Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${s.proc.pid}/status`, "utf8"))![1]) / 1024;
        const call = (method: string, req: unknown) =>
          new Promise<{ status?: string }>((res, rej) =>
            // deno-lint-ignore no-explicit-any
            s.client[method](req, (e: any, v: any) => (e ? rej(e) : res(v)))
          );
        const rss0 = rss();
        const samples: number[] = [];
        for (let i = 0; i < 20; i++) {
          await call("PutMap", { id: `m${i}`, movingai: sprinkled(512, i) });
          // A long grid query: the workers get the layer and region tables and build jump tables over them.
          const plan = await call("Plan", {
            map: { id: `m${i}` },
            start: { x: 2.5, y: 2.5 },
            goal: { x: 508.5, y: 508.5 },
            planner: "PLANNER_GRID",
          });
          expect(plan.status).toBe("PLAN_STATUS_FOUND");
          // Freed tables go back within moments, not at once: compare resident memory after a pause.
          if (i === 7 || i === 19) await new Promise((r) => setTimeout(r, 2000));
          samples.push(rss());
        }
        // The cache (~5 MB a version) is full after ~6 maps. Before: every evicted version's region tables
        // stayed in the workers for good and no idle worker collected the shared tables: +5-9 MB a map, +350
        // MB here. Between the pauses RSS may climb a few MB a map and fall back in them (GC lags).
        const growth = samples[19] - samples[7];
        console.log(
          `FIGURE map budget 32 MB, 20 maps of 512x512 put and planned (2 workers): RSS ${
            rss0.toFixed(0)
          } -> ` +
            `${samples[7].toFixed(0)} after 8 maps -> ${
              samples[19].toFixed(0)
            } MB after 20 (each after a 2 s pause) ` +
            `(${growth >= 0 ? "+" : ""}${growth.toFixed(0)} MB over the last 12)`,
        );
        expect(growth).toBeLessThan(40);
        expect(samples[19] - rss0).toBeLessThan(3 * 32 + 100);
      } finally {
        await s.stop();
      }
    },
    180_000,
  );
});

describe("compressed messages", () => {
  test("10 concurrent gzip PutMaps that inflate to 40 MB each: RESOURCE_EXHAUSTED, RSS flat", async () => {
    const { Client } = loadPathfinder();
    // The client compresses what it sends (gzip): 40 MB of '.' travels as ~40 KB.
    const client = new Client(`127.0.0.1:${srv.port}`, grpc.credentials.createInsecure(), {
      "grpc.default_compression_algorithm": 2,
      "grpc.max_send_message_length": -1,
    });
    const text = "type octile\nheight 4096\nwidth 4096\nmap\n" + ".".repeat(40 * 1024 * 1024);
    const before = rssMb();
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb())), 20);
    const codes = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        new Promise<number>((res) =>
          // deno-lint-ignore no-explicit-any
          client.PutMap({ id: `bomb${i}`, movingai: text }, (e: any) => res(e ? e.code : 0))
        )),
    );
    clearInterval(sampler);
    client.close();
    // Before: 64 MB messages were inflated whole (INVALID_ARGUMENT after parsing, ~+1 GB here).
    expect(codes).toEqual(Array(10).fill(grpc.status.RESOURCE_EXHAUSTED));
    expect(peak - before).toBeLessThan(300);
    expect(srv.proc.exitCode).toBeNull();
  }, 120_000);
});
