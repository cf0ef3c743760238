/**
 * The balancer's own errors reach clients as gRPC statuses: nginx with the deployed configuration
 * (deploy/nginx/arcpath.conf) in front of a replica that is gone answers a unary call and a stream UNAVAILABLE
 * with a message, which clients retry. Without the configuration's error page nginx sent its HTML 502 page, and
 * the client read it as a message frame (RESOURCE_EXHAUSTED "Received message larger than max (1752460652 ...)",
 * the bytes "http"), which is what a client reopening its stream right after a replica was killed once saw
 * (test/e2e/distributedFaults.test.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import * as grpc from "@grpc/grpc-js";
import { loadPathfinder } from "../../src/server/proto.ts";
import { ROOT } from "../helpers/server.ts";
import { freePort, startNginx, type TestNginx } from "../helpers/redis.ts";

let nginx: TestNginx;
// deno-lint-ignore no-explicit-any
let client: any;

beforeAll(async () => {
  // A port nothing listens on: the replica is gone.
  const n = await startNginx(ROOT, [await freePort()]);
  if (!n) throw new Error("these tests need nginx: install it with `apt-get install -y nginx`");
  nginx = n;
  const { Client } = loadPathfinder();
  client = new Client(`127.0.0.1:${nginx.rrPort}`, grpc.credentials.createInsecure());
}, 60_000);

afterAll(() => {
  client?.close();
  nginx?.stop();
});

describe("nginx in front of a replica that is gone", () => {
  test("a unary call ends UNAVAILABLE, saying to retry", async () => {
    const err = await new Promise<grpc.ServiceError | null>((res) => client.ListMaps({}, res));
    expect(err?.code, err?.details).toBe(grpc.status.UNAVAILABLE);
    expect(err?.details).toMatch(/no arcpath replica answered through the balancer; retry/);
  });

  test("a stream ends UNAVAILABLE, saying to retry", async () => {
    const s = client.Stream();
    const err = await new Promise<grpc.ServiceError>((res) => {
      s.on("error", res);
      s.on("data", () => {});
      s.write({ plan: { map: { id: "any" } } });
    });
    expect(err.code, err.details).toBe(grpc.status.UNAVAILABLE);
    expect(err.details).toMatch(/retry/);
  });
});
