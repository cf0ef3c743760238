/**
 * The shipped deployment files, proven without a container engine (none here): the processes they describe
 * are started directly, with the command, arguments and environment read from the files themselves
 * (test/helpers/deployFiles.ts), only addresses moved to loopback ports.
 *
 * - docker-compose.yml, profile `distributed`: Redis with the file's arguments, as many replicas as it runs
 *   with their command and environment, nginx on the configuration file it mounts; the file's own healthcheck
 *   command passes against each replica; maps and plans go through nginx to every replica. The default
 *   `arcpath` service is in no profile (plain `docker compose up` runs it alone), every distributed service is
 *   in `distributed`, and no two services publish the same host port (both sets may run at once).
 * - deploy/k8s: Redis with the StatefulSet's arguments, the Deployment's replicas; the gRPC health service the
 *   probes call answers SERVING; client-side round-robin (what the headless Service is for) spreads calls;
 *   a SIGTERMed replica drains and exits 0 well within terminationGracePeriodSeconds after its preStop pause,
 *   and the others go on serving. (The k8s nginx ConfigMap's `server ... resolve` needs nginx >= 1.27.3, newer
 *   than Debian's; it is not run here.)
 */
import { afterAll, describe, expect, test } from "vitest";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import * as grpc from "@grpc/grpc-js";
import { loadPathfinder } from "../../src/server/proto.ts";
import { call, ROOT, type TestServer } from "../helpers/server.ts";
import { startNginx, startRedis, type TestNginx, type TestRedis } from "../helpers/redis.ts";
import { field } from "../helpers/distributed.ts";
import { waitUntil } from "../helpers/waitFor.ts";
import {
  composeNginxConf,
  composeRedisArgs,
  composeReplica,
  composeServices,
  healthClient,
  k8sRedisArgs,
  k8sReplica,
  startReplica,
} from "../helpers/deployFiles.ts";

const plan = {
  map: { id: "deployed" },
  start: { x: 2.5, y: 10.5 },
  goal: { x: 37.5, y: 10.5 },
  planner: "PLANNER_SMOOTH",
};

const count = (s: TestServer, method: string) =>
  (s.output().match(new RegExp(`"method":"${method}"`, "g")) ?? []).length;

const running: { redis?: TestRedis; nginx?: TestNginx | null; replicas: TestServer[] }[] = [];
afterAll(async () => {
  for (const r of running) {
    r.nginx?.stop();
    await Promise.all(r.replicas.map((s) => s.stop()));
    await r.redis?.kill().catch(() => {});
  }
});

describe("docker-compose.yml, profile distributed, its processes started directly", () => {
  test("the default service runs alone, the distributed set only under its profile, no host port twice", () => {
    const services = composeServices();
    expect(services.arcpath?.profiles, "the single-process default").toEqual([]);
    const distributed = ["redis", "arcpath-1", "arcpath-2", "arcpath-3", "nginx"];
    for (const name of distributed) expect(services[name]?.profiles, name).toEqual(["distributed"]);
    expect(Object.keys(services).sort()).toEqual(["arcpath", ...distributed].sort());
    const ports = Object.values(services).flatMap((s) => s.hostPorts);
    expect(ports).toContain(50051);
    expect(services.nginx.hostPorts).toHaveLength(2);
    expect(new Set(ports).size, `host ports ${ports}`).toBe(ports.length);
  });

  test(
    "Redis, the replicas and nginx as the file runs them: healthchecks pass, calls reach every replica",
    async () => {
      const spec = composeReplica();
      expect(spec.replicas).toBe(3);
      expect(spec.env.ARCPATH_STORE).toMatch(/^redis:\/\/redis:6379/);
      const redisArgs = composeRedisArgs();
      expect(redisArgs).toEqual(expect.arrayContaining(["--appendonly", "yes"]));
      const set: (typeof running)[number] = { replicas: [] };
      running.push(set);
      set.redis = await startRedis(redisArgs);
      set.replicas = await Promise.all(
        Array.from({ length: spec.replicas }, () => startReplica(spec, set.redis!.url)),
      );
      for (const s of set.replicas) {
        expect(s.output()).toContain(`"store":"map store redis://127.0.0.1:${set.redis.port}/0"`);
      }

      // The compose healthcheck's own command, pointed at each replica's port.
      const healthcheck = /"-e",\s*"(require\('net'\)[^"]+)"/.exec(
        readFileSync(`${ROOT}/docker-compose.yml`, "utf8"),
      );
      expect(healthcheck, "the compose healthcheck command").not.toBeNull();
      for (const s of set.replicas) {
        execFileSync("node", ["-e", healthcheck![1].replace("50051", String(s.port))], { timeout: 10_000 });
      }

      set.nginx = await startNginx(ROOT, set.replicas.map((s) => s.port), composeNginxConf());
      if (!set.nginx) throw new Error("this test needs nginx: install it with `apt-get install -y nginx`");
      const { Client } = loadPathfinder();
      const lb = new Client(`127.0.0.1:${set.nginx.rrPort}`, grpc.credentials.createInsecure());
      try {
        await call(lb, "PutMap", { id: "deployed", movingai: field() });
        const before = set.replicas.map((s) => count(s, "Plan"));
        for (let i = 0; i < 9; i++) expect((await call(lb, "Plan", plan)).status).toBe("PLAN_STATUS_FOUND");
        // Each Plan's access line is written by its replica asynchronously (pino): wait for all 9.
        await waitUntil(
          "the 9 Plans' access lines",
          () => set.replicas.reduce((n, s, i) => n + count(s, "Plan") - before[i], 0) >= 9,
        );
        const plans = set.replicas.map((s, i) => count(s, "Plan") - before[i]);
        expect(plans.every((n) => n > 0), `Plans per replica ${plans}`).toBe(true);
      } finally {
        lb.close();
      }
    },
    90_000,
  );
});

describe("deploy/k8s, its processes started directly", () => {
  test(
    "probes SERVING, client-side round-robin, a SIGTERMed pod drains within its grace period",
    async () => {
      const spec = k8sReplica();
      // Drain bound: the preStop pause, then at most 5 s for running calls (src/main.ts), inside the grace period.
      expect(spec.preStopSeconds + 5).toBeLessThan(spec.graceSeconds);
      const set: (typeof running)[number] = { replicas: [] };
      running.push(set);
      set.redis = await startRedis(k8sRedisArgs());
      set.replicas = await Promise.all(
        Array.from({ length: spec.replicas }, () => startReplica(spec, set.redis!.url)),
      );
      expect(spec.env.ARCPATH_LISTEN).toBe(`0.0.0.0:${spec.probePort}`);

      // What the readiness, liveness and startup probes ask.
      for (const s of set.replicas) {
        const h = healthClient(s.port);
        try {
          expect((await call(h, "Check", { service: "" })).status).toBe("SERVING");
        } finally {
          h.close();
        }
      }

      // Client-side round-robin over every replica's address (the headless Service's DNS answer).
      const { Client } = loadPathfinder();
      const target = `ipv4:${set.replicas.map((s) => `127.0.0.1:${s.port}`).join(",")}`;
      const rr = new Client(target, grpc.credentials.createInsecure(), {
        "grpc.service_config": JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
      });
      try {
        await call(rr, "PutMap", { id: "deployed", movingai: field() });
        const before = set.replicas.map((s) => count(s, "Plan"));
        for (let i = 0; i < 9; i++) expect((await call(rr, "Plan", plan)).status).toBe("PLAN_STATUS_FOUND");
        // Each Plan's access line is written by its replica asynchronously (pino): wait for all 9.
        await waitUntil(
          "the 9 Plans' access lines",
          () => set.replicas.reduce((n, s, i) => n + count(s, "Plan") - before[i], 0) >= 9,
        );
        const plans = set.replicas.map((s, i) => count(s, "Plan") - before[i]);
        expect(plans.every((n) => n > 0), `Plans per replica ${plans}`).toBe(true);

        // A rolling update's SIGTERM: the pod drains and exits 0; the channel goes on with the others.
        const victim = set.replicas[0];
        const exited = new Promise<string>((res) =>
          victim.proc.once("exit", (code, sig) => res(`${code ?? sig}`))
        );
        // (process.kill: Deno's ChildProcess.kill() reports the signal sent as the way the child ended.)
        process.kill(victim.proc.pid!, "SIGTERM");
        expect(await exited, victim.output().slice(-3000)).toBe("0");
        for (let i = 0; i < 6; i++) {
          expect((await call(rr, "Plan", plan)).status).toBe("PLAN_STATUS_FOUND");
        }
      } finally {
        rr.close();
      }
    },
    90_000,
  );
});
