/**
 * Clients come and go: a client that made hundreds of calls and then closes its channel (an HTTP/2 GOAWAY)
 * must not take the server down for everyone else. Deno 2.9.4-2.9.6 abort the whole process in nghttp2 when
 * such a GOAWAY arrives (`find_stream_on_goaway_func` assertion, github.com/denoland/deno/issues/36788); the
 * project pins Deno 2.9.3, and this test keeps it honest.
 */
import { afterAll, describe, expect, test } from "vitest";
import * as grpc from "@grpc/grpc-js";
import { loadPathfinder } from "../../src/server/proto.ts";
import { call, startServer, type TestServer } from "../helpers/server.ts";

let srv: TestServer | null = null;
afterAll(async () => {
  await srv?.stop();
});

describe("client connections", () => {
  test("clients that close after hundreds of calls leave the server serving", async () => {
    srv = await startServer();
    const { Client } = loadPathfinder();
    const plan = (client: unknown, i: number) =>
      call(client, "Plan", {
        map: { id: "arena" },
        start: { x: 2.5 + (i % 3), y: 2.5 },
        goal: { x: 8.5, y: 6.5 + (i % 2) },
        planner: "PLANNER_GRID",
      });
    for (let round = 0; round < 3; round++) {
      const client = new Client(`127.0.0.1:${srv.port}`, grpc.credentials.createInsecure());
      let done = 0;
      // 8 calls in flight at a time, 320 in all, then the channel is closed.
      for (let i = 0; i < 320; i += 8) {
        const batch = await Promise.all(Array.from({ length: 8 }, (_, k) => plan(client, i + k)));
        done += batch.filter((r) => r.status === "PLAN_STATUS_FOUND").length;
      }
      expect(done).toBe(320);
      client.close();
      // Let the GOAWAY reach the server, then the long-lived client goes on.
      await new Promise((r) => setTimeout(r, 200));
      const after = await plan(srv.client, round);
      expect(after.status).toBe("PLAN_STATUS_FOUND");
      expect(srv.proc.exitCode).toBeNull();
      expect(srv.proc.signalCode).toBeNull();
    }
    expect(srv.output()).not.toMatch(/Assertion|free\(\)|panicked/);
  }, 120_000);
});
