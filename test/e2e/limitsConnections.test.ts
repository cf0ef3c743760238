/**
 * Per-connection limits over real gRPC: the file-descriptor guard (the red team's defect: once descriptors ran
 * out, the port stayed dead after the clients left), the cap on concurrent calls per connection, and the idle
 * timeout.
 */
import { afterEach, describe, expect, test } from "vitest";
import { spawn } from "node:child_process";
import * as net from "node:net";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { loadPathfinder } from "../../src/server/proto.ts";
import { call, callError, ROOT, startServer, type TestServer } from "../helpers/server.ts";

let stops: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const s of stops) await s();
  stops = [];
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Starts the server under `ulimit -n fds` (no --max-connections: the default derived from the limit). */
async function startLimited(fds: number): Promise<{ port: number; output: () => string }> {
  const dir = mkdtempSync(join(tmpdir(), "arcpath-fd-"));
  const cmd =
    `ulimit -n ${fds} && exec "$0" run -A ${join(ROOT, "src/main.ts")} --listen 127.0.0.1:0 --data ${dir} ` +
    "--no-demo";
  const proc = spawn("bash", ["-c", cmd, process.execPath], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ARCPATH_LOG_LEVEL: "info" },
  });
  stops.push(() => {
    proc.kill("SIGKILL");
  });
  let out = "";
  proc.stdout!.on("data", (d) => (out += d));
  proc.stderr!.on("data", (d) => (out += d));
  for (let i = 0; i < 600 && !/ARCPATH_READY port=\d+/.test(out); i++) await sleep(100);
  const m = /ARCPATH_READY port=(\d+)/.exec(out);
  if (!m) throw new Error(`server did not start:\n${out}`);
  return { port: Number(m[1]), output: () => out };
}

/**
 * ListMaps on fresh channels until one is answered or `ms` pass; the last error code, or 0. Closed sockets
 * reach a loaded server late, so one try right after they close could fail even with the guard working;
 * without the guard the port stays dead and every try fails.
 */
async function probeUntilServed(port: number, ms = 30_000): Promise<number> {
  const end = Date.now() + ms;
  let code = await probe(port);
  while (code !== 0 && Date.now() < end) {
    await sleep(200);
    code = await probe(port);
  }
  return code;
}

/** ListMaps on a fresh channel; the error code, or 0. */
async function probe(port: number): Promise<number> {
  const { Client } = loadPathfinder();
  const c = new Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  try {
    await call(c, "ListMaps", {}, { deadline: Date.now() + 5000 });
    return 0;
  } catch (e) {
    return (e as grpc.ServiceError).code;
  } finally {
    c.close();
  }
}

describe("per-connection limits", () => {
  test(
    "400 idle connections at a 256 file-descriptor limit: the server accepts new clients once they close",
    async () => {
      const { port, output } = await startLimited(256);
      expect(await probe(port)).toBe(0);
      const socks = Array.from({ length: 400 }, () => {
        const s = net.connect(port, "127.0.0.1");
        s.on("error", () => {});
        return s;
      });
      await sleep(1500);
      for (const s of socks) s.destroy();
      await sleep(1000);
      // Before the guard: DEADLINE_EXCEEDED here for good (the listener stopped accepting).
      expect(await probeUntilServed(port)).toBe(0);
      expect(await probe(port)).toBe(0);
      expect(output()).toMatch(/"maxConnections":64/);
    },
    60_000,
  );

  test(
    "--max-streams-per-connection: calls past the cap wait on that connection, another connection is served",
    async () => {
      const srv: TestServer = await startServer(["--max-streams-per-connection", "2"]);
      stops.push(() => srv.stop());
      // Connected first, so that the client holds the server's SETTINGS (the cap) before it opens streams.
      await call(srv.client, "ListMaps", {});
      // Two open streams hold the connection's two slots.
      const held = [srv.client.Stream(), srv.client.Stream()];
      for (const s of held) s.on("error", () => {});
      stops.unshift(() => held.forEach((s) => s.cancel()));
      await sleep(500);
      const err = await callError(srv.client, "ListMaps", {}, { deadline: Date.now() + 1500 });
      expect(err.code).toBe(grpc.status.DEADLINE_EXCEEDED);
      expect(await probe(srv.port)).toBe(0);
    },
    60_000,
  );

  test(
    "--max-connection-idle-ms: a connection with no call is closed, and the client reconnects",
    async () => {
      const srv: TestServer = await startServer(["--max-connection-idle-ms", "300"]);
      stops.push(() => srv.stop());
      await call(srv.client, "ListMaps", {});
      const ch = srv.client.getChannel() as grpc.Channel;
      expect(ch.getConnectivityState(false)).toBe(grpc.connectivityState.READY);
      let state = ch.getConnectivityState(false);
      for (let i = 0; i < 300 && state === grpc.connectivityState.READY; i++) {
        await sleep(100);
        state = ch.getConnectivityState(false);
      }
      // The server's GOAWAY took the channel out of READY; the next call connects again.
      expect(state).not.toBe(grpc.connectivityState.READY);
      expect((await call(srv.client, "ListMaps", {})).maps).toBeDefined();
    },
    60_000,
  );
});

describe("configuration", () => {
  test(
    "flags from a config file and ARCPATH_<FLAG>: the command line wins over the environment over the file",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "arcpath-conf-"));
      const conf = join(dir, "arcpath.conf");
      writeFileSync(conf, "# test\nmax-connections 70\nmax-streams-per-connection = 9\nno-demo\nqueue 17\n");
      process.env.ARCPATH_MAX_CONNECTIONS = "80";
      process.env.ARCPATH_QUEUE = "18";
      try {
        const srv: TestServer = await startServer(["--config", conf, "--queue", "19"]);
        stops.push(() => srv.stop());
        const line = srv.output().split("\n").find((l) => l.includes("arcpath listening"))!;
        const fields = JSON.parse(line);
        expect(fields.maxConnections).toBe(80);
        expect(fields.maxQueue).toBe(19);
        expect(fields.maps).toBe(0);
        // The file's cap of 9 calls a connection holds: a 10th concurrent call waits.
        await call(srv.client, "ListMaps", {}); // connected: the client holds the server's cap of 9
        const held = Array.from({ length: 9 }, () => srv.client.Stream());
        for (const s of held) s.on("error", () => {});
        stops.unshift(() => held.forEach((s) => s.cancel()));
        await sleep(300);
        const err = await callError(srv.client, "ListMaps", {}, { deadline: Date.now() + 1000 });
        expect(err.code).toBe(grpc.status.DEADLINE_EXCEEDED);
      } finally {
        delete process.env.ARCPATH_MAX_CONNECTIONS;
        delete process.env.ARCPATH_QUEUE;
      }
      writeFileSync(conf, "max-conections 70\n");
      const bad = spawn(process.execPath, ["run", "-A", join(ROOT, "src/main.ts"), "--config", conf], {
        cwd: ROOT,
      });
      let err = "";
      bad.stderr!.on("data", (d) => (err += d));
      const code = await new Promise((r) => bad.on("exit", r));
      expect(code).toBe(2);
      expect(err).toMatch(/arcpath\.conf:1: unknown flag "max-conections 70"/);
    },
    60_000,
  );
});
