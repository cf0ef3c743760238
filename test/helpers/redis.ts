/**
 * A real redis-server for distributed-mode tests and benchmarks: installed from Debian's package when missing
 * (as root), started on a free loopback port with append-only persistence in a temporary directory, killed and
 * restarted on the same files; and nginx running the shipped balancer configuration in front of replicas.
 *
 * @module
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A free loopback port. */
export function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once("error", rej);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => res(port));
    });
  });
}

/** Path of an installed binary, or null. */
function which(bin: string): string | null {
  for (const dir of ["/usr/bin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin"]) {
    try {
      execFileSync("test", ["-x", join(dir, bin)]);
      return join(dir, bin);
    } catch {
      // not in this folder
    }
  }
  return null;
}

/** A binary, installing its Debian package when missing and running as root; null if it stays missing. */
export function ensureBinary(bin: string, pkg: string): string | null {
  const found = which(bin);
  if (found) return found;
  if (process.getuid?.() === 0) {
    for (const steps of [[["install", "-y", pkg]], [["update"], ["install", "-y", pkg]]]) {
      try {
        // Wait for the dpkg lock: another test file may be installing its own packages at the same time.
        for (const s of steps) {
          execFileSync("apt-get", ["-o", "DPkg::Lock::Timeout=600", ...s], {
            stdio: "ignore",
            timeout: 600_000,
            env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
          });
        }
        break;
      } catch {
        // try with a fresh package list, then give up (the caller says what to install)
      }
    }
  }
  return which(bin);
}

/** A running redis-server. */
export interface TestRedis {
  /** Its port on 127.0.0.1. */
  port: number;
  /** `redis://127.0.0.1:PORT`. */
  url: string;
  /** Its process id (a new one after a restart). */
  readonly pid: number | undefined;
  /** SIGKILLs it (no shutdown save: only the append-only file remains). */
  kill(): Promise<void>;
  /** Starts it again on the same port and files. */
  restart(): Promise<void>;
}

/**
 * Starts redis-server with `--appendonly yes --appendfsync always` (or `args`, e.g. a deployment file's) in a
 * temporary directory on a free loopback port; throws saying what to install when there is none.
 */
export async function startRedis(
  args = ["--appendonly", "yes", "--appendfsync", "always", "--save", ""],
): Promise<TestRedis> {
  const bin = ensureBinary("redis-server", "redis-server");
  if (!bin) {
    throw new Error(
      "distributed-mode tests need redis-server: install it with `apt-get install -y redis-server`",
    );
  }
  const dir = mkdtempSync(join(tmpdir(), "arcpath-redis-"));
  const port = await freePort();
  let proc: ChildProcess | null = null;
  const start = async () => {
    const where = ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir];
    const p = spawn(bin, [...args, ...where], { stdio: ["ignore", "pipe", "pipe"] });
    proc = p;
    let out = "";
    await new Promise<void>((res, rej) => {
      // 30 s: a start (or the restart after a kill, replaying the append-only file) on a loaded machine.
      const timer = setTimeout(() => rej(new Error(`redis-server did not start in 30 s:\n${out}`)), 30_000);
      p.stdout!.on("data", (d) => {
        out += d.toString();
        if (out.includes("Ready to accept connections")) {
          clearTimeout(timer);
          res();
        }
      });
      p.once("exit", (code) => {
        clearTimeout(timer);
        rej(new Error(`redis-server exited with ${code}:\n${out}`));
      });
    });
  };
  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    get pid() {
      return (proc as ChildProcess | null)?.pid;
    },
    kill: async () => {
      const p = proc!;
      if (p.exitCode !== null || p.signalCode !== null) return;
      await new Promise<void>((res) => {
        p.once("exit", () => res());
        p.kill("SIGKILL");
      });
    },
    restart: start,
  };
}

/** nginx running the shipped deploy/nginx/arcpath.conf in front of loopback replicas. */
export interface TestNginx {
  /** The round-robin listener's port. */
  rrPort: number;
  /** The map-affine listener's port. */
  affinePort: number;
  /** The nginx master's process id (its workers are its children). */
  pid: number | undefined;
  /** Stops it. */
  stop(): void;
}

/**
 * Starts nginx (null if it is not installed and cannot be) on the shipped deploy/nginx/arcpath.conf (or
 * `confPath`), its `server arcpath-N:50051` lines replaced by `replicaPorts` on 127.0.0.1 and its listeners
 * moved to free ports.
 */
export async function startNginx(
  root: string,
  replicaPorts: number[],
  confPath = join(root, "deploy/nginx/arcpath.conf"),
): Promise<TestNginx | null> {
  const bin = ensureBinary("nginx", "nginx");
  if (!bin) return null;
  const [rrPort, affinePort] = [await freePort(), await freePort()];
  const dir = mkdtempSync(join(tmpdir(), "arcpath-nginx-"));
  const servers = replicaPorts.map((p) => `    server 127.0.0.1:${p};`).join("\n");
  const conf = readFileSync(confPath, "utf8")
    .replace(/^(\s*server arcpath-\d+:50051[^;]*;\n)+/gm, servers + "\n")
    .replace(/listen 50051/, `listen 127.0.0.1:${rrPort}`)
    .replace(/listen 50052/, `listen 127.0.0.1:${affinePort}`);
  writeFileSync(join(dir, "arcpath.conf"), conf);
  writeFileSync(
    join(dir, "nginx.conf"),
    `pid ${dir}/nginx.pid;\nerror_log ${dir}/error.log;\nevents {}\nhttp {\n  access_log off;\n` +
      `  client_body_temp_path ${dir};\n  include ${dir}/arcpath.conf;\n}\n`,
  );
  const proc = spawn(bin, ["-p", dir, "-c", join(dir, "nginx.conf"), "-g", "daemon off;"], {
    stdio: "ignore",
  });
  // Ready once both listeners accept connections.
  const t0 = Date.now();
  for (const port of [rrPort, affinePort]) {
    while (!(await accepts(port))) {
      if (Date.now() - t0 > 30_000 || proc.exitCode !== null) {
        proc.kill("SIGKILL");
        throw new Error(`nginx did not start: ${readFileSync(join(dir, "error.log"), "utf8").slice(-2000)}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return { rrPort, affinePort, pid: proc.pid, stop: () => proc.kill("SIGTERM") };
}

/** Whether a loopback port accepts a TCP connection. */
function accepts(port: number): Promise<boolean> {
  return new Promise((res) => {
    const s = connect(port, "127.0.0.1");
    s.once("connect", () => {
      s.destroy();
      res(true);
    });
    s.once("error", () => res(false));
  });
}
