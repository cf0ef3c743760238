/**
 * Starts a real arcpath server process on loopback for the end-to-end benchmarks.
 *
 * @module
 */
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { loadPathfinder } from "../src/server/proto.ts";

/** Repo root. */
export const ROOT = resolve(import.meta.dirname ?? ".", "..");

/** A running server with a client. */
export interface BenchServer {
  /** Its port. */
  port: number;
  /** A Pathfinder client. */
  // deno-lint-ignore no-explicit-any
  client: any;
  /** Stops client and server. */
  stop: () => void;
}

/** Starts `src/main.ts` on a free loopback port with a fresh data directory. */
export async function startBenchServer(args: string[] = []): Promise<BenchServer> {
  const dir = mkdtempSync(join(tmpdir(), "arcpath-bench-"));
  const proc = spawn(
    Deno.execPath(),
    ["run", "-A", join(ROOT, "src/main.ts"), "--listen", "127.0.0.1:0", "--data", dir, ...args],
    {
      cwd: ROOT,
      stdio: ["ignore", "pipe", Deno.env.get("ARCPATH_BENCH_STDERR") ? "inherit" : "ignore"],
      env: { ...process.env, ARCPATH_LOG_LEVEL: "warn" },
    },
  );
  let out = "";
  const port = await new Promise<number>((res, rej) => {
    proc.stdout!.on("data", (d) => {
      out += d.toString();
      const m = /ARCPATH_READY port=(\d+)/.exec(out);
      if (m) res(Number(m[1]));
    });
    proc.on("exit", (c) => rej(new Error(`server exited ${c}`)));
  });
  const { Client } = loadPathfinder();
  const client = new Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), {
    "grpc.max_receive_message_length": 64 * 1024 * 1024,
  });
  return {
    port,
    client,
    stop: () => {
      client.close();
      proc.kill("SIGTERM");
    },
  };
}

/** Promisified unary call. */
// deno-lint-ignore no-explicit-any
export function unary<T = any>(client: any, method: string, req: unknown): Promise<T> {
  return new Promise((res, rej) => client[method](req, (e: unknown, r: T) => (e ? rej(e) : res(r))));
}

/** Median and p95 of a list of numbers. */
export function medianP95(xs: number[]): { median: number; p95: number } {
  const s = [...xs].sort((a, b) => a - b);
  return {
    median: s[Math.floor((s.length - 1) / 2)],
    p95: s[Math.min(s.length - 1, Math.floor(s.length * 0.95))],
  };
}
