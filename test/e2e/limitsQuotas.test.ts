/**
 * Per-tenant quotas over real gRPC (--quotas FILE with --auth-tokens): maps, stored_mb, plans_per_s, streams
 * and fleet_units, each refused RESOURCE_EXHAUSTED naming the quota and its limit, for the tenant over it only;
 * a changed quota file applies without a restart.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import * as grpc from "@grpc/grpc-js";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer, type TestServer } from "../helpers/server.ts";
import { waitForOutput } from "../helpers/waitFor.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

let srv: TestServer;
let quotaFile: string;
const QUOTAS =
  "# test quotas\n* maps=100\nlimited maps=2 plans_per_s=2 streams=1 fleet_units=2\nsmall stored_mb=0.01\n";
beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), "arcpath-quotas-"));
  const tokens = join(dir, "tokens");
  writeFileSync(tokens, "tok-limited limited\ntok-free free\ntok-small small\n");
  quotaFile = join(dir, "quotas");
  writeFileSync(quotaFile, QUOTAS);
  srv = await startServer(["--auth-tokens", tokens, "--quotas", quotaFile], join(dir, "data"));
}, 120_000);
afterAll(async () => {
  await srv?.stop();
});

const as = (token: string) => {
  const m = new grpc.Metadata();
  m.set("authorization", `Bearer ${token}`);
  return m;
};
/** A unary call with a tenant's token. */
const callAs = (token: string, method: string, req: unknown) =>
  new Promise<Any>((res, rej) =>
    srv.client[method](req, as(token), (e: grpc.ServiceError | null, v: Any) => (e ? rej(e) : res(v)))
  );
const errorAs = async (token: string, method: string, req: unknown): Promise<grpc.ServiceError> => {
  try {
    await callAs(token, method, req);
  } catch (e) {
    return e as grpc.ServiceError;
  }
  throw new Error(`${method} succeeded`);
};

function field(w: number, h: number): string {
  const rows = Array.from({ length: h }, () => ".".repeat(w));
  return `type octile\nheight ${h}\nwidth ${w}\nmap\n${rows.join("\n")}\n`;
}
const plan = {
  map: { id: "m1" },
  start: { x: 1.5, y: 1.5 },
  goal: { x: 8.5, y: 8.5 },
  planner: "PLANNER_GRID",
};

describe("per-tenant quotas", () => {
  test("maps: the third map of a tenant with maps=2 is refused; an overwrite and other tenants are not", async () => {
    await callAs("tok-limited", "PutMap", { id: "m1", movingai: field(10, 10) });
    await callAs("tok-limited", "PutMap", { id: "m2", movingai: field(10, 10) });
    const err = await errorAs("tok-limited", "PutMap", { id: "m3", movingai: field(10, 10) });
    expect(err.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(err.details).toMatch(/quota maps: tenant "limited" has 2 maps \(limit 2\)/);
    await callAs("tok-limited", "PutMap", { id: "m1", movingai: field(12, 10) });
    for (const id of ["a", "b", "c"]) await callAs("tok-free", "PutMap", { id, movingai: field(10, 10) });
    // Deleting one makes room.
    await callAs("tok-limited", "DeleteMap", { map: { id: "m2" } });
    await callAs("tok-limited", "PutMap", { id: "m3", movingai: field(10, 10) });
  });

  test("stored_mb: tiles past the tenant's megabytes are refused", async () => {
    await callAs("tok-small", "PutMap", { id: "s1", movingai: field(50, 50) });
    const err = await errorAs("tok-small", "PutMap", { id: "s2", movingai: field(100, 100) });
    expect(err.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(err.details).toMatch(/quota stored_mb: tenant "small" would store 0\.012 MB \(limit 0\.01\)/);
  });

  test("plans_per_s: a burst past the rate is refused, the free tenant is not", async () => {
    const tries = await Promise.all(
      Array.from({ length: 8 }, () => callAs("tok-limited", "Plan", plan).then(() => null, (e) => e)),
    );
    const refused = tries.filter((e) => e !== null);
    expect(refused.length).toBeGreaterThanOrEqual(4);
    for (const e of refused) {
      expect(e.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
      expect(e.details).toMatch(/quota plans_per_s: tenant "limited" .*\(limit 2\)/);
    }
    // PlanMany counts each request.
    const many = await errorAs("tok-limited", "PlanMany", { requests: [plan, plan, plan] });
    expect(many.details).toMatch(/plans_per_s.*asked for 3 plans/);
    await callAs("tok-free", "PutMap", { id: "m1", movingai: field(10, 10) });
    const free = await Promise.all(Array.from({ length: 8 }, () => callAs("tok-free", "Plan", plan)));
    expect(free.every((r) => r.status === "PLAN_STATUS_FOUND")).toBe(true);
    // The bucket refills.
    await new Promise((r) => setTimeout(r, 1100));
    expect((await callAs("tok-limited", "Plan", plan)).status).toBe("PLAN_STATUS_FOUND");
  });

  test("streams: a second concurrent Stream of a tenant with streams=1 is refused until the first ends", async () => {
    const open = () => {
      const s = srv.client.Stream(as("tok-limited"));
      const got: Any[] = [];
      let error: grpc.ServiceError | null = null;
      s.on("data", (u: Any) => got.push(u));
      s.on("error", (e: grpc.ServiceError) => (error = e));
      s.write({ plan });
      return { s, got, error: () => error };
    };
    const first = open();
    while (first.got.length === 0 && !first.error()) await new Promise((r) => setTimeout(r, 50));
    expect(first.got[0]?.kind).toBe("UPDATE_KIND_INITIAL");
    const second = open();
    while (!second.error()) await new Promise((r) => setTimeout(r, 50));
    expect(second.error()!.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(second.error()!.details).toMatch(/quota streams: tenant "limited" has 1 open streams \(limit 1\)/);
    first.s.cancel();
    // The cancel reaches the server (and gives the slot back) some time later on a loaded machine: a stream opened
    // meanwhile is still refused by the quota; the slot must come back within 30 s.
    let third = open();
    const end = Date.now() + 30_000;
    for (;;) {
      while (third.got.length === 0 && !third.error()) await new Promise((r) => setTimeout(r, 50));
      if (
        third.got.length > 0 || third.error()!.code !== grpc.status.RESOURCE_EXHAUSTED || Date.now() > end
      ) break;
      await new Promise((r) => setTimeout(r, 100));
      third = open();
    }
    expect(third.error()?.details).toBeUndefined();
    expect(third.got[0]?.kind).toBe("UPDATE_KIND_INITIAL");
    third.s.cancel();
    await new Promise((r) => setTimeout(r, 300));
  });

  test("fleet_units: the third unit of a tenant with fleet_units=2 is refused by name", async () => {
    await callAs("tok-limited", "PutMap", { id: "m1", movingai: field(30, 30) });
    const f = srv.client.Fleet(as("tok-limited"));
    const updates: Any[] = [];
    f.on("data", (u: Any) => updates.push(u));
    f.on("error", () => {});
    f.write({ open: { map: { id: "m1" } } });
    for (let i = 0; i < 3; i++) {
      f.write({
        unit: {
          id: `u${i}`,
          unit: { name: "soldier" },
          pose: { x: 2.5 + 3 * i, y: 2.5 },
          goal: { x: 2.5 + 3 * i, y: 20.5 },
          time: 0,
        },
      });
    }
    f.write({ sync: { time: 0 } });
    while (!updates.some((u) => u.synced)) await new Promise((r) => setTimeout(r, 50));
    f.end();
    const errors = updates.flatMap((u) => u.errors);
    expect(errors).toHaveLength(1);
    expect(errors[0].code).toBe("RESOURCE_EXHAUSTED");
    expect(errors[0].message).toMatch(/quota fleet_units: tenant "limited" has 2 fleet units \(limit 2\)/);
    await new Promise((r) => setTimeout(r, 300));
  });

  test("a changed quota file applies without a restart; a bad one is ignored with a log line", async () => {
    writeFileSync(quotaFile, QUOTAS.replace("limited maps=2", "limited maps=5"));
    let ok = false;
    // The file is polled every second; a loaded machine may take a few polls.
    for (let i = 0; i < 300 && !ok; i++) {
      await new Promise((r) => setTimeout(r, 100));
      ok = await callAs("tok-limited", "PutMap", { id: "m4", movingai: field(10, 10) }).then(
        () => true,
        () => false,
      );
    }
    expect(ok).toBe(true);
    writeFileSync(quotaFile, "limited maps=lots\n");
    await waitForOutput(srv, /quota file change ignored.*maps=lots|maps=lots.*quota file change ignored/);
    // Still maps=5: m1, m3, m4 and two more fit, the sixth map does not.
    await callAs("tok-limited", "PutMap", { id: "m5", movingai: field(10, 10) });
    await callAs("tok-limited", "PutMap", { id: "m6", movingai: field(10, 10) });
    const err = await errorAs("tok-limited", "PutMap", { id: "m7", movingai: field(10, 10) });
    expect(err.details).toMatch(/has 5 maps \(limit 5\)/);
  });
});
