/**
 * Starts a real arcpath server process on loopback, and a gRPC client for it: the one launcher of the
 * end-to-end tests and the end-to-end benchmarks.
 *
 * @module
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { loadPathfinder } from "../../src/server/proto.ts";
import { SERVER_V8_OPTION } from "../../src/tools/v8Flags.ts";

/** Repo root. */
export const ROOT = resolve(import.meta.dirname ?? ".", "../..");
/** The shared data directory beside the checkout. */
export const SHARED = resolve(ROOT, "../shared");

/** Every Planner enum name a client may ask for. */
export const PLANNERS = [
  "PLANNER_AUTO",
  "PLANNER_GRID",
  "PLANNER_SMOOTH",
  "PLANNER_CURVED",
  "PLANNER_DIRECTIONAL",
  "PLANNER_HYBRID",
  "PLANNER_HIERARCHICAL",
] as const;

/** A running server and a client. */
export interface TestServer {
  /** The process. */
  proc: ChildProcess;
  /** Port it listens on. */
  port: number;
  /** Data directory. */
  dataDir: string;
  /** A Pathfinder client. */
  // deno-lint-ignore no-explicit-any
  client: any;
  /** Everything the server printed. */
  output: () => string;
  /** Stops the server (SIGTERM, then SIGKILL after 5 s). */
  stop: () => Promise<void>;
}

/** How {@link startServer} runs the server. */
export interface LaunchOptions {
  /** Enable the server's --test-hooks (default true; benchmarks run without). */
  testHooks?: boolean;
  /** ARCPATH_LOG_LEVEL (default "info"; benchmarks use "warn"). */
  logLevel?: string;
}

/** Starts a server; `extraArgs` go to src/main.ts. */
export async function startServer(
  extraArgs: string[] = [],
  dataDir?: string,
  opts: LaunchOptions = {},
): Promise<TestServer> {
  const dir = dataDir ?? mkdtempSync(join(tmpdir(), "arcpath-test-"));
  const proc = spawn(
    process.execPath,
    [
      "run",
      "-A",
      SERVER_V8_OPTION,
      join(ROOT, "src/main.ts"),
      "--listen",
      "127.0.0.1:0",
      "--data",
      dir,
      ...(opts.testHooks ?? true ? ["--test-hooks"] : []),
      ...extraArgs,
    ],
    {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, ARCPATH_LOG_LEVEL: opts.logLevel ?? "info" },
    },
  );
  let out = "";
  // Deno's child_process sets signalCode on any kill() (a SIGHUP for a reload too), so the process's real end is
  // tracked here: stop() must not take a reloaded server for a dead one and leave it running.
  let exited = false;
  proc.once("exit", () => (exited = true));
  proc.stdout!.on("data", (d) => (out += d.toString()));
  proc.stderr!.on("data", (d) => (out += d.toString()));
  const port = await new Promise<number>((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`server did not start in 60 s:\n${out}`)), 60_000);
    const check = () => {
      const m = /ARCPATH_READY port=(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        res(Number(m[1]));
      }
    };
    proc.stdout!.on("data", check);
    proc.on("exit", (code) => {
      clearTimeout(timer);
      rej(new Error(`server exited with ${code}:\n${out}`));
    });
  });
  const { Client } = loadPathfinder();
  const client = new Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), {
    "grpc.max_receive_message_length": 64 * 1024 * 1024,
    "grpc.max_send_message_length": 64 * 1024 * 1024,
  });
  const stop = () =>
    new Promise<void>((res) => {
      client.close();
      if (exited) return res();
      const kill = setTimeout(() => signal(proc, "SIGKILL"), 5000);
      proc.once("exit", () => {
        clearTimeout(kill);
        res();
      });
      signal(proc, "SIGTERM");
    });
  return { proc, port, dataDir: dir, client, output: () => out, stop };
}

/**
 * Sends a signal by pid: once a child has been sent any signal (a SIGHUP for a reload), Deno's ChildProcess.kill()
 * takes it for killed and sends nothing more, so a later SIGTERM through it would leave the server running.
 */
export function signal(proc: ChildProcess, sig: NodeJS.Signals): void {
  try {
    if (proc.pid !== undefined) process.kill(proc.pid, sig);
  } catch {
    // Already gone.
  }
}

/** Calls a unary method and returns a promise (rejects with the gRPC error). */
// deno-lint-ignore no-explicit-any
export function call<T = any>(
  // deno-lint-ignore no-explicit-any
  client: any,
  method: string,
  req: unknown,
  options: grpc.CallOptions = {},
): Promise<T> {
  return new Promise((res, rej) => {
    client[method](req, options, (err: grpc.ServiceError | null, value: T) => (err ? rej(err) : res(value)));
  });
}

/** Calls and expects a gRPC error; returns it. */
export async function callError(
  // deno-lint-ignore no-explicit-any
  client: any,
  method: string,
  req: unknown,
  options: grpc.CallOptions = {},
): Promise<grpc.ServiceError> {
  try {
    await call(client, method, req, options);
  } catch (e) {
    return e as grpc.ServiceError;
  }
  throw new Error(`${method} succeeded but an error was expected`);
}
