/**
 * Built-in demo maps are read-only for clients by default (PutMap, PatchMap and DeleteMap of a demo id are
 * FAILED_PRECONDITION naming the map and --writable-demo-maps; the map is unchanged), and writable with the flag.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { call, callError, startServer, type TestServer } from "../helpers/server.ts";

let ro: TestServer;
let rw: TestServer;
const TEXT = "type octile\nheight 2\nwidth 2\nmap\n..\n..\n";

beforeAll(async () => {
  [ro, rw] = await Promise.all([startServer([]), startServer(["--writable-demo-maps"])]);
}, 120_000);

afterAll(async () => {
  await Promise.all([ro?.stop(), rw?.stop()]);
});

describe("demo maps", () => {
  test("read-only by default: each write refused naming the map and the flag; the map unchanged", async () => {
    const before = await call(ro.client, "GetMap", { map: { id: "yard" } });
    const writes: [string, object][] = [
      ["PutMap", { id: "yard", movingai: TEXT }],
      ["PatchMap", { map: { id: "yard" }, edits: [{ x: 5, y: 5, tile: "@" }] }],
      ["PatchMap", { map: { id: "yard", version: before.version }, edits: [{ x: 5, y: 5, tile: "@" }] }],
      ["DeleteMap", { map: { id: "yard" } }],
    ];
    for (const [method, req] of writes) {
      const e = await callError(ro.client, method, req);
      expect(e.code, method).toBe(9);
      expect(e.details, method).toMatch(/"yard" is a built-in demo map.*--writable-demo-maps/);
    }
    const after = await call(ro.client, "GetMap", { map: { id: "yard" } });
    expect(after.version).toBe(before.version);
    expect(after.builtin).toBe(true);
    // Other ids are written as before.
    expect((await call(ro.client, "PutMap", { id: "mine", movingai: TEXT })).width).toBe(2);
  });

  test("with --writable-demo-maps a client may replace and delete them", async () => {
    const put = await call(rw.client, "PutMap", { id: "arena", movingai: TEXT });
    expect([put.width, put.builtin]).toEqual([2, false]);
    expect((await call(rw.client, "DeleteMap", { map: { id: "arena" } })).deleted).toBe(true);
  });
});
