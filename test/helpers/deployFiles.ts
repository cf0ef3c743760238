/**
 * The shipped deployment files, read for tests that start the same processes directly (there is no container
 * engine or cluster here): the `distributed` profile of docker-compose.yml and deploy/k8s/*.yaml give the
 * replicas' command, arguments and environment, Redis's arguments and the nginx configuration mounted. The files are read
 * by the few line shapes they use (flow-style lists, `KEY: "value"` maps, `- { name: X, value: "y" }`); a
 * changed shape fails loudly here rather than being half read.
 *
 * @module
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { loadPathfinder } from "../../src/server/proto.ts";
import { ROOT, type TestServer } from "./server.ts";

/** How the shipped files run an arcpath replica. */
export interface ReplicaSpec {
  /** The command and its arguments, as the container runs them (from /app = the repository root). */
  command: string[];
  /** Its environment. */
  env: Record<string, string>;
  /** How many replicas the file runs. */
  replicas: number;
}

/** The first `key: [...]` flow list after `from` in `text` (JSON once parsed). */
function flowList(text: string, key: string, from = 0, file = ""): string[] {
  // One line, or one item a line as `deno fmt` writes a long list (with a trailing comma, which JSON refuses).
  const m = new RegExp(`^\\s*${key}: (\\[[^\\]]*\\])`, "m").exec(text.slice(from));
  if (!m) throw new Error(`${file}: no "${key}: [...]" list`);
  return JSON.parse(m[1].replace(/,\s*\]$/, "]")) as string[];
}

/** Text of a file under the repository. */
function read(rel: string): string {
  return readFileSync(join(ROOT, rel), "utf8");
}

const COMPOSE = "docker-compose.yml";

/** The replicas of docker-compose.yml's `distributed` profile (its `x-arcpath` anchor). */
export function composeReplica(): ReplicaSpec {
  const text = read(COMPOSE);
  const at = text.indexOf("x-arcpath: &arcpath");
  if (at < 0) throw new Error(`${COMPOSE}: no x-arcpath anchor`);
  const block = text.slice(at, text.indexOf("\nservices:", at));
  const env: Record<string, string> = {};
  const envAt = block.indexOf("  environment:\n");
  if (envAt < 0) throw new Error(`${COMPOSE}: the replicas have no environment`);
  for (const line of block.slice(envAt).split("\n").slice(1)) {
    const m = /^ {4}([A-Z_]+): "(.*)"$/.exec(line);
    if (!m) break;
    env[m[1]] = m[2];
  }
  const replicas = (text.match(/^ {2}arcpath-\d+: \*arcpath$/gm) ?? []).length;
  return { command: flowList(block, "command", 0, COMPOSE), env, replicas };
}

/** One service of docker-compose.yml: the profiles it belongs to and the host ports it publishes. */
export interface ComposeService {
  /** Its `profiles` ([] for a service that always runs). */
  profiles: string[];
  /** The host side of each `ports` entry ("host:container"). */
  hostPorts: number[];
}

/**
 * Every service of docker-compose.yml by name, a `name: *arcpath` alias read as the `x-arcpath` anchor's
 * block. Only the shapes the file uses are read: `profiles: [...]` flow lists and `- "host:container"` ports.
 */
export function composeServices(): Record<string, ComposeService> {
  const text = read(COMPOSE);
  const anchorAt = text.indexOf("x-arcpath: &arcpath");
  const servicesAt = text.indexOf("\nservices:\n");
  if (anchorAt < 0 || servicesAt < 0) throw new Error(`${COMPOSE}: no x-arcpath anchor or services`);
  const anchor = text.slice(anchorAt, servicesAt);
  const body = text.slice(servicesAt + "\nservices:\n".length).split(/^\S/m)[0];
  const read1 = (block: string): ComposeService => {
    const p = /^\s*profiles: (\[.*\])\s*$/m.exec(block);
    const ports = block.split(/^\s*ports:\n/m)[1]?.split("\n") ?? [];
    const hostPorts: number[] = [];
    for (const line of ports) {
      if (/^\s*#/.test(line)) continue;
      const m = /^\s*- "(\d+):(\d+)"$/.exec(line);
      if (!m) break;
      hostPorts.push(Number(m[1]));
    }
    return { profiles: p ? JSON.parse(p[1]) as string[] : [], hostPorts };
  };
  const out: Record<string, ComposeService> = {};
  const heads = [...body.matchAll(/^ {2}([a-z0-9-]+):( \*arcpath)?$/gm)];
  heads.forEach((h, i) => {
    const block = h[2] ? anchor : body.slice(h.index! + h[0].length, heads[i + 1]?.index ?? body.length);
    out[h[1]] = read1(block);
  });
  return out;
}

/** redis-server's arguments in docker-compose.yml. */
export function composeRedisArgs(): string[] {
  const text = read(COMPOSE);
  const [bin, ...args] = flowList(text, "command", text.indexOf("\n  redis:\n"), COMPOSE);
  if (bin !== "redis-server") throw new Error(`${COMPOSE}: redis runs ${bin}`);
  return args;
}

/** The nginx configuration file docker-compose.yml mounts (absolute path). */
export function composeNginxConf(): string {
  const m = /^\s*- (\S+):\/etc\/nginx\/conf\.d\/arcpath\.conf(:ro)?$/m.exec(read(COMPOSE));
  if (!m) throw new Error(`${COMPOSE}: nginx mounts no arcpath.conf`);
  return resolve(dirname(join(ROOT, COMPOSE)), m[1]);
}

const K8S = "deploy/k8s/arcpath.yaml";

/** What deploy/k8s/arcpath.yaml's Deployment runs, and its drain settings. */
export interface K8sReplicaSpec extends ReplicaSpec {
  /** terminationGracePeriodSeconds. */
  graceSeconds: number;
  /** The preStop hook's sleep, seconds. */
  preStopSeconds: number;
  /** The port the readiness probe asks the gRPC health service on. */
  probePort: number;
}

/** The Deployment of deploy/k8s/arcpath.yaml. */
export function k8sReplica(): K8sReplicaSpec {
  const text = read(K8S);
  const env: Record<string, string> = {};
  for (const m of text.matchAll(/^\s*- \{ name: ([A-Z_]+), value: "(.*)" \}$/gm)) env[m[1]] = m[2];
  const num = (re: RegExp, what: string) => {
    const m = re.exec(text);
    if (!m) throw new Error(`${K8S}: no ${what}`);
    return Number(m[1]);
  };
  const sleep = /preStop:\s*\n\s*exec: \{ command: \["sleep", "(\d+)"\] \}/.exec(text);
  if (!sleep) throw new Error(`${K8S}: no preStop sleep`);
  return {
    command: [...flowList(text, "command", 0, K8S), ...flowList(text, "args", 0, K8S)],
    env,
    replicas: num(/^ {2}replicas: (\d+)$/m, "replicas"),
    graceSeconds: num(/terminationGracePeriodSeconds: (\d+)/, "terminationGracePeriodSeconds"),
    preStopSeconds: Number(sleep[1]),
    probePort: num(/readinessProbe:\s*\n\s*grpc: \{ port: (\d+) \}/, "gRPC readiness probe"),
  };
}

/** redis-server's arguments in deploy/k8s/redis.yaml. */
export function k8sRedisArgs(): string[] {
  return flowList(read("deploy/k8s/redis.yaml"), "args", 0, "deploy/k8s/redis.yaml");
}

/**
 * Starts a replica exactly as `spec` runs it, but on loopback: ARCPATH_LISTEN on a free port of 127.0.0.1,
 * ARCPATH_STORE's host replaced by `redisUrl`, and a temporary data directory (a container's own filesystem).
 */
export async function startReplica(spec: ReplicaSpec, redisUrl: string): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), "arcpath-deploy-"));
  const store = new URL(spec.env.ARCPATH_STORE ?? "redis://missing");
  const env = {
    ...process.env,
    ...spec.env,
    ARCPATH_LISTEN: "127.0.0.1:0",
    ARCPATH_STORE: `${redisUrl}${store.pathname === "/" ? "" : store.pathname}`,
    ARCPATH_DATA: dir,
  };
  const [bin, ...args] = spec.command;
  const proc: ChildProcess = spawn(join(ROOT, bin), args, {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  proc.stdout!.on("data", (d) => (out += d.toString()));
  proc.stderr!.on("data", (d) => (out += d.toString()));
  const port = await new Promise<number>((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`replica did not start in 60 s:\n${out}`)), 60_000);
    proc.stdout!.on("data", () => {
      const m = /ARCPATH_READY port=(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        res(Number(m[1]));
      }
    });
    proc.on("exit", (code) => {
      clearTimeout(timer);
      rej(new Error(`replica exited with ${code}:\n${out}`));
    });
  });
  const { Client } = loadPathfinder();
  const client = new Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  const stop = () =>
    new Promise<void>((res) => {
      client.close();
      if (proc.exitCode !== null || proc.signalCode !== null) return res();
      const kill = setTimeout(() => proc.kill("SIGKILL"), 10_000);
      proc.once("exit", () => {
        clearTimeout(kill);
        res();
      });
      proc.kill("SIGTERM");
    });
  return { proc, port, dataDir: dir, client, output: () => out, stop };
}

/** A grpc.health.v1.Health client for `port` on loopback (what a gRPC readiness probe calls). */
// deno-lint-ignore no-explicit-any
export function healthClient(port: number): any {
  const def = protoLoader.loadSync(
    join(ROOT, "node_modules/grpc-health-check/proto/health/v1/health.proto"),
    {
      keepCase: true,
      enums: String,
    },
  );
  // deno-lint-ignore no-explicit-any
  const pkg = grpc.loadPackageDefinition(def) as any;
  return new pkg.grpc.health.v1.Health(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
}
