/**
 * TLS and mTLS over real gRPC with certificates generated at test time (test/helpers/certs.ts): a TLS client
 * trusting the CA connects, a plaintext client or one trusting another CA does not; with a client CA, a client
 * without a certificate, with an expired one or one from another CA is refused; certificates reload in place
 * (file change, SIGHUP) without dropping open connections; the plaintext health listener answers probes.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { renameSync, writeFileSync } from "node:fs";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { protoPath as healthProto } from "grpc-health-check";
import { loadPathfinder } from "../../src/server/proto.ts";
import { call, callError, startServer, type TestServer } from "../helpers/server.ts";
import { type CertDir, certDir } from "../helpers/certs.ts";
import { waitForOutput } from "../helpers/waitFor.ts";

let certs: CertDir;
const servers: TestServer[] = [];
// deno-lint-ignore no-explicit-any
const clients: any[] = [];

beforeAll(() => {
  certs = certDir();
  certs.ca("ca");
  certs.ca("otherca");
  certs.leaf("server", "ca", "server");
  certs.leaf("server2", "otherca", "server");
  certs.leaf("client", "ca", "client");
  certs.leaf("expired", "ca", "client", -1);
  certs.leaf("stranger", "otherca", "client");
});
afterAll(async () => {
  for (const c of clients) c.close();
  for (const s of servers) await s.stop();
});

async function start(extra: string[]): Promise<TestServer> {
  const s = await startServer([
    "--no-demo",
    "--tls-cert",
    certs.path("server.pem"),
    "--tls-key",
    certs.path("server.key"),
    ...extra,
  ]);
  servers.push(s);
  return s;
}

/** A Pathfinder client for `localhost` (a host name: the server certificate names it) with these credentials. */
function client(port: number, creds: grpc.ChannelCredentials) {
  const { Client } = loadPathfinder();
  const c = new Client(`localhost:${port}`, creds);
  clients.push(c);
  return c;
}

const ssl = (ca: string, who?: string) =>
  who
    ? grpc.credentials.createSsl(certs.read(`${ca}.pem`), certs.read(`${who}.key`), certs.read(`${who}.pem`))
    : grpc.credentials.createSsl(certs.read(`${ca}.pem`));
const deadline = () => ({ deadline: Date.now() + 4000 });

describe("TLS", () => {
  test("a client trusting the CA connects; plaintext and other-CA clients do not", async () => {
    const s = await start([]);
    expect(s.output()).toMatch(/"tls":"tls"/);
    const ok = await call(client(s.port, ssl("ca")), "ListMaps", {}, deadline());
    expect(ok.maps).toEqual([]);
    const plain = await callError(
      client(s.port, grpc.credentials.createInsecure()),
      "ListMaps",
      {},
      deadline(),
    );
    expect(plain.code).toBe(grpc.status.UNAVAILABLE);
    const other = await callError(client(s.port, ssl("otherca")), "ListMaps", {}, deadline());
    expect(other.code).toBe(grpc.status.UNAVAILABLE);
  });

  test("mTLS: a valid client certificate connects; none, expired or another CA's is refused", async () => {
    const s = await start(["--tls-client-ca", certs.path("ca.pem")]);
    expect(s.output()).toMatch(/"tls":"mtls"/);
    await call(client(s.port, ssl("ca", "client")), "ListMaps", {}, deadline());
    for (const who of [undefined, "expired", "stranger"]) {
      const e = await callError(client(s.port, ssl("ca", who)), "ListMaps", {}, deadline());
      expect(e.code, `client certificate ${who ?? "none"}`).toBe(grpc.status.UNAVAILABLE);
    }
  });

  test("the plaintext --health-listen answers probes while the service port requires mTLS", async () => {
    const s = await start(["--tls-client-ca", certs.path("ca.pem"), "--health-listen", "127.0.0.1:0"]);
    const hp = Number(/ARCPATH_HEALTH_READY port=(\d+)/.exec(s.output())![1]);
    // deno-lint-ignore no-explicit-any
    const pkg = grpc.loadPackageDefinition(protoLoader.loadSync(healthProto, { enums: String })) as any;
    const health = new pkg.grpc.health.v1.Health(`127.0.0.1:${hp}`, grpc.credentials.createInsecure());
    clients.push(health);
    const res = await call(health, "check", { service: "arcpath.v1.Pathfinder" }, deadline());
    expect(res.status).toBe("SERVING");
    // Only health there: the Pathfinder service is not served on the plaintext port.
    const e = await callError(client(hp, grpc.credentials.createInsecure()), "ListMaps", {}, deadline());
    expect(e.code).toBe(grpc.status.UNIMPLEMENTED);
  });

  for (const how of ["file change", "SIGHUP"] as const) {
    test(`certificates reload on ${how} without dropping an open connection`, async () => {
      const s = await start(["--tls-reload-ms", how === "SIGHUP" ? "3600000" : "200"]);
      const old = client(s.port, ssl("ca"));
      await call(old, "ListMaps", {}, deadline());
      // Swap in a certificate from another CA, each file by an atomic rename.
      writeFileSync(certs.path("next.pem"), certs.read("server2.pem"));
      writeFileSync(certs.path("next.key"), certs.read("server2.key"));
      const cur = certs.read("server.pem"), curKey = certs.read("server.key");
      try {
        renameSync(certs.path("next.key"), certs.path("server.key"));
        renameSync(certs.path("next.pem"), certs.path("server.pem"));
        if (how === "SIGHUP") s.proc.kill("SIGHUP");
        let ok = false;
        for (let i = 0; i < 40 && !ok; i++) {
          const c = client(s.port, ssl("otherca"));
          ok = await call(c, "ListMaps", {}, { deadline: Date.now() + 1000 }).then(() => true, () => false);
          c.close();
          if (!ok) await new Promise((r) => setTimeout(r, 100));
        }
        expect(ok, "a new client trusting the new CA connects").toBe(true);
        // The reload's log line is written asynchronously (pino): wait for it.
        await waitForOutput(
          s,
          (o) => o.includes(`"reason":"${how === "SIGHUP" ? "SIGHUP" : "file changed"}"`),
        );
        // The old connection (whose client trusts only the old CA, so could not reconnect) still serves.
        await call(old, "ListMaps", {}, deadline());
        const fresh = await callError(client(s.port, ssl("ca")), "ListMaps", {}, deadline());
        expect(fresh.code).toBe(grpc.status.UNAVAILABLE);
      } finally {
        writeFileSync(certs.path("server.pem"), cur);
        writeFileSync(certs.path("server.key"), curKey);
      }
    });
  }

  test("a reload with a key that does not match keeps the previous certificates", async () => {
    const s = await start(["--tls-reload-ms", "3600000"]);
    const cur = certs.read("server.key");
    try {
      writeFileSync(certs.path("server.key"), certs.read("client.key"));
      s.proc.kill("SIGHUP");
      await waitForOutput(s, /does not match the certificate/);
      await call(client(s.port, ssl("ca")), "ListMaps", {}, deadline());
    } finally {
      writeFileSync(certs.path("server.key"), cur);
    }
  });
});
