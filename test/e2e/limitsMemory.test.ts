/**
 * Memory under hostile input over real gRPC: gzip-compressed messages that inflate past the message limit (the
 * red team's 50 frames of 64 KB took the server past 6 GB) are refused as they inflate, and the server's resident
 * memory stays flat.
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
