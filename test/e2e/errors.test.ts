/**
 * End-to-end over real gRPC: bad input gets the right status code and a message naming the field and value;
 * the server keeps serving.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import * as grpc from "@grpc/grpc-js";
import { call, callError, startServer, type TestServer } from "../helpers/server.ts";

let srv: TestServer;
const arena = { id: "arena" }; // built-in demo map, 49 x 49

beforeAll(async () => {
  srv = await startServer();
}, 120_000);
afterAll(async () => {
  await srv?.stop();
});

const ok = { map: arena, start: { x: 1.5, y: 11.5 }, goal: { x: 4.5, y: 12.5 }, planner: "PLANNER_GRID" };

describe("Plan input errors", () => {
  const cases: [string, object, grpc.status, RegExp][] = [
    ["NaN start.x", { ...ok, start: { x: NaN, y: 1 } }, grpc.status.INVALID_ARGUMENT, /start\.x.*NaN/],
    [
      "infinite goal.y",
      { ...ok, goal: { x: 1, y: Infinity } },
      grpc.status.INVALID_ARGUMENT,
      /goal\.y.*Infinity/,
    ],
    [
      "start out of bounds",
      { ...ok, start: { x: 600, y: 1 } },
      grpc.status.INVALID_ARGUMENT,
      /start\.x.*600/,
    ],
    ["goal out of bounds", { ...ok, goal: { x: 1, y: -3 } }, grpc.status.INVALID_ARGUMENT, /goal\.y.*-3/],
    [
      "start on a blocked tile",
      { ...ok, start: { x: 0.5, y: 0.5 } },
      grpc.status.INVALID_ARGUMENT,
      /start.*blocked/,
    ],
    ["negative radius", { ...ok, unit: { radius: -1 } }, grpc.status.INVALID_ARGUMENT, /unit\.radius.*-1/],
    [
      "unknown profile",
      { ...ok, unit: { name: "hovercraft" } },
      grpc.status.INVALID_ARGUMENT,
      /unit\.name.*hovercraft/,
    ],
    ["bad headings", { ...ok, unit: { headings: 7 } }, grpc.status.INVALID_ARGUMENT, /unit\.headings.*7/],
    [
      "bad neighbourhood",
      { ...ok, options: { neighborhood: 6 } },
      grpc.status.INVALID_ARGUMENT,
      /options\.neighborhood.*6/,
    ],
    ["unknown map", { ...ok, map: { id: "nope" } }, grpc.status.NOT_FOUND, /map\.id.*nope/],
    [
      "unknown version",
      { ...ok, map: { id: "arena", version: "deadbeef" } },
      grpc.status.NOT_FOUND,
      /deadbeef/,
    ],
    ["bad map id", { ...ok, map: { id: "../etc" } }, grpc.status.INVALID_ARGUMENT, /map\.id.*\.\.\/etc/],
    ["missing start", { map: arena, goal: ok.goal }, grpc.status.INVALID_ARGUMENT, /start/],
    [
      "huge start.heading",
      { ...ok, start: { x: 1.5, y: 11.5, heading: 1e300 } },
      grpc.status.INVALID_ARGUMENT,
      /start\.heading.*within.*1e\+300/,
    ],
    [
      "huge goal.heading",
      { ...ok, goal: { x: 4.5, y: 12.5, heading: -2e7 } },
      grpc.status.INVALID_ARGUMENT,
      /goal\.heading.*-20000000/,
    ],
  ];
  for (const [name, req, code, msg] of cases) {
    test(name, async () => {
      const err = await callError(srv.client, "Plan", req);
      expect(grpc.status[err.code]).toBe(grpc.status[code]);
      expect(err.details).toMatch(msg);
    });
  }
});

describe("map upload errors", () => {
  const cases: [string, object, grpc.status, RegExp][] = [
    ["no grid", { id: "m" }, grpc.status.INVALID_ARGUMENT, /grid/],
    [
      "corrupt header",
      { id: "m", movingai: "type octile\nheight x\nwidth 3\nmap\n...\n" },
      grpc.status.INVALID_ARGUMENT,
      /height/,
    ],
    [
      "short row",
      { id: "m", movingai: "type octile\nheight 2\nwidth 3\nmap\n...\n..\n" },
      grpc.status.INVALID_ARGUMENT,
      /line|row/,
    ],
    [
      "missing rows",
      { id: "m", movingai: "type octile\nheight 3\nwidth 3\nmap\n...\n" },
      grpc.status.INVALID_ARGUMENT,
      /row|line/,
    ],
    [
      "oversized map",
      { id: "m", movingai: "type octile\nheight 9000\nwidth 9000\nmap\n" },
      grpc.status.RESOURCE_EXHAUSTED,
      /9000.*--max-map-side/,
    ],
    [
      "raw size mismatch",
      { id: "m", raw: { width: 4, height: 4, tiles: new Uint8Array(15) } },
      grpc.status.INVALID_ARGUMENT,
      /15|16/,
    ],
    [
      "raw zero width",
      { id: "m", raw: { width: 0, height: 4, tiles: new Uint8Array(0) } },
      grpc.status.INVALID_ARGUMENT,
      /width/,
    ],
    [
      "bad id",
      { id: "a/b", movingai: "type octile\nheight 1\nwidth 1\nmap\n.\n" },
      grpc.status.INVALID_ARGUMENT,
      /id.*a\/b/,
    ],
    [
      "terrain cost below 1",
      {
        id: "m",
        movingai: "type octile\nheight 1\nwidth 1\nmap\n.\n",
        terrain: [{ code: 46, cost: 0.5 }],
      },
      grpc.status.INVALID_ARGUMENT,
      /terrain\[0\]\.cost.*0\.5/,
    ],
  ];
  for (const [name, req, code, msg] of cases) {
    test(name, async () => {
      const err = await callError(srv.client, "PutMap", req);
      expect(grpc.status[err.code]).toBe(grpc.status[code]);
      expect(err.details).toMatch(msg);
    });
  }

  test("a message over the size limit is refused", async () => {
    const err = await callError(srv.client, "PutMap", {
      id: "huge",
      raw: { width: 4096, height: 4096, tiles: new Uint8Array(4096 * 4096 * 5) },
    });
    expect(grpc.status[err.code]).toBe(grpc.status[grpc.status.RESOURCE_EXHAUSTED]);
  });

  test("Curve input errors name the field", async () => {
    const err = await callError(srv.client, "Curve", {
      start: { x: 0, y: 0, heading: 0 },
      goal: { x: 1, y: 1, heading: 0 },
      turning_radius: -2,
    });
    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(err.details).toMatch(/turning_radius.*-2/);
    // A heading far beyond its circle would be reduced modulo 2 pi with no precision left: refused.
    const huge = await callError(srv.client, "Curve", {
      start: { x: 0, y: 0, heading: 0 },
      goal: { x: 1, y: 1, heading: 1e300 },
      turning_radius: 1,
    });
    expect(huge.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(huge.details).toMatch(/goal\.heading.*within.*1e\+300/);
  });

  test("after all the bad input, the server still answers and has lost no map", async () => {
    const res = await call(srv.client, "Plan", ok);
    expect(res.status).toBe("PLAN_STATUS_FOUND");
    expect(res.length).toBeCloseTo(3.41421, 4);
    const list = await call(srv.client, "ListMaps", {});
    expect(list.maps.map((m: { id: string }) => m.id)).toEqual(expect.arrayContaining(["arena", "yard"]));
    expect(list.maps.some((m: { id: string }) => m.id === "m" || m.id === "huge")).toBe(false);
  });
});
