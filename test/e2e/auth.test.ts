/**
 * Authentication and tenants over real gRPC: every RPC x {own map, another tenant's map, no token, bad token,
 * read-only token} (an exhaustive table); another tenant's map answers exactly as a map that does not exist;
 * built-in maps are shared read-only; the token file is re-read on change; the data directory keeps tenants
 * apart across a restart; a randomized test never returns another tenant's data.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { startServer, type TestServer } from "../helpers/server.ts";
import { waitForOutput, waitUntil } from "../helpers/waitFor.ts";

const TOKENS = {
  alice: "alice-token-0001",
  aliceRo: "alice-readonly-01",
  bob: "bob-token-000001",
  admin: "admin-token-00001",
};
let dir: string;
let tokenFile: string;
let srv: TestServer;

function md(token: string | null): grpc.Metadata {
  const m = new grpc.Metadata();
  if (token !== null) m.set("authorization", `Bearer ${token}`);
  return m;
}

/** A unary call's outcome: OK with its value, or the status code and message. */
async function outcome(method: string, req: unknown, token: string | null) {
  return await new Promise<{ code: number; details: string; value?: Any }>((res) => {
    srv.client[method](
      req,
      md(token),
      { deadline: Date.now() + 20_000 },
      (e: grpc.ServiceError | null, v: Any) =>
        res(e ? { code: e.code, details: e.details } : { code: 0, details: "", value: v }),
    );
  });
}

// deno-lint-ignore no-explicit-any
type Any = any;

/** A Stream's (or Fleet's) first answer: the first update's kind (map version), or the status it ended with. */
async function streamOutcome(mapId: string, token: string | null, method = "Stream") {
  const st = srv.client[method](md(token));
  const r = await new Promise<{ code: number; details: string; kind?: string }>((res) => {
    const timer = setTimeout(() => res({ code: -1, details: "timeout" }), 20_000);
    st.on("data", (u: Any) => {
      clearTimeout(timer);
      res({ code: 0, details: "", kind: u.kind ?? u.map_version });
    });
    st.on("error", (e: grpc.ServiceError) => {
      clearTimeout(timer);
      res({ code: e.code, details: e.details });
    });
    st.write(method === "Stream" ? { plan: planReq(mapId) } : { open: { map: { id: mapId } } });
  });
  st.cancel();
  return r;
}

const rows = (c: string) => Array.from({ length: 12 }, () => c.repeat(16));
const movingai = (r: string[]) =>
  `type octile\nheight ${r.length}\nwidth ${r[0].length}\nmap\n${r.join("\n")}\n`;
const planReq = (id: string) => ({
  map: { id },
  start: { x: 1.5, y: 1.5 },
  goal: { x: 10.5, y: 8.5 },
  planner: "PLANNER_GRID",
});

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "arcpath-auth-"));
  tokenFile = join(dir, "tokens.txt");
  writeFileSync(
    tokenFile,
    [
      "# token tenant role",
      `${TOKENS.alice} alice`,
      `${TOKENS.aliceRo} alice ro`,
      `${TOKENS.bob} bob rw`,
      `${TOKENS.admin} default rw`,
    ].join("\n"),
  );
  srv = await startServer(["--auth-tokens", tokenFile], join(dir, "data"));
  // Both tenants own a map called "same" (different content) and one only they have.
  for (const [who, tok] of [["alice", TOKENS.alice], ["bob", TOKENS.bob]] as const) {
    for (const id of ["same", `${who}-only`]) {
      const r = await outcome("PutMap", {
        id,
        movingai: movingai(rows(who === "alice" ? "." : "T").map((l, i) => i === 5 ? "." + l.slice(1) : l)),
      }, tok);
      expect(r.code, `${who} PutMap ${id}: ${r.details}`).toBe(0);
    }
  }
}, 120_000);
afterAll(async () => {
  await srv?.stop();
});

type Case = "own" | "other" | "none" | "bad" | "ro";
const CASES: Case[] = ["own", "other", "none", "bad", "ro"];
const tokenOf: Record<Case, string | null> = {
  own: TOKENS.alice,
  other: TOKENS.alice,
  none: null,
  bad: "not-a-known-token",
  ro: TOKENS.aliceRo,
};
/** The map each case addresses: alice's own map, bob's map (as alice), or alice's own map with other tokens. */
const mapOf = (c: Case) => (c === "other" ? "bob-only" : "alice-only");

const OK = 0, NOT_FOUND = 5, PERMISSION_DENIED = 7, UNAUTHENTICATED = 16;
/** Expected code per RPC and case (DeleteMap of another tenant's map is OK with deleted=false, as for none). */
const EXPECTED: Record<string, Record<Case, number>> = {
  GetMap: { own: OK, other: NOT_FOUND, none: UNAUTHENTICATED, bad: UNAUTHENTICATED, ro: OK },
  PatchMap: { own: OK, other: NOT_FOUND, none: UNAUTHENTICATED, bad: UNAUTHENTICATED, ro: PERMISSION_DENIED },
  PutMap: { own: OK, other: OK, none: UNAUTHENTICATED, bad: UNAUTHENTICATED, ro: PERMISSION_DENIED },
  DeleteMap: { own: OK, other: OK, none: UNAUTHENTICATED, bad: UNAUTHENTICATED, ro: PERMISSION_DENIED },
  ListMaps: { own: OK, other: OK, none: UNAUTHENTICATED, bad: UNAUTHENTICATED, ro: OK },
  Plan: { own: OK, other: NOT_FOUND, none: UNAUTHENTICATED, bad: UNAUTHENTICATED, ro: OK },
  PlanMany: { own: OK, other: OK, none: UNAUTHENTICATED, bad: UNAUTHENTICATED, ro: OK },
  Curve: { own: OK, other: OK, none: UNAUTHENTICATED, bad: UNAUTHENTICATED, ro: OK },
  Stream: { own: OK, other: NOT_FOUND, none: UNAUTHENTICATED, bad: UNAUTHENTICATED, ro: OK },
  Fleet: { own: OK, other: NOT_FOUND, none: UNAUTHENTICATED, bad: UNAUTHENTICATED, ro: OK },
};

/** Bob's maps as bob sees them (their versions must never change by alice's calls). */
async function bobsView() {
  const r = await outcome("ListMaps", {}, TOKENS.bob);
  return r.value.maps.map((m: Any) => `${m.id}@${m.version}`).sort();
}

describe("authentication and tenants", () => {
  test("the server says at start how it authenticates", () => {
    expect(srv.output()).toMatch(/"auth":"tokens \(4\)"/);
    expect(srv.output()).not.toMatch(/authentication is off/);
  });

  for (const rpc of Object.keys(EXPECTED)) {
    test(`${rpc} x {own, other tenant's, no token, bad token, read-only}`, async () => {
      const bobBefore = await bobsView();
      for (const c of CASES) {
        const id = mapOf(c);
        const tok = tokenOf[c];
        // DeleteMap and PutMap on own maps use a throwaway id so the other rows keep their maps.
        const own = c === "own" && (rpc === "DeleteMap" || rpc === "PutMap") ? "alice-scratch" : id;
        if (rpc === "DeleteMap" && c === "own") {
          expect((await outcome("PutMap", { id: own, movingai: movingai(rows(".")) }, TOKENS.alice)).code)
            .toBe(0);
        }
        let r: { code: number; details: string; value?: Any; kind?: string };
        if (rpc === "Stream" || rpc === "Fleet") r = await streamOutcome(own, tok, rpc);
        else {
          const reqs: Record<string, unknown> = {
            GetMap: { map: { id: own } },
            PatchMap: { map: { id: own }, edits: [{ x: 3, y: 3, width: 1, height: 1, tile: "@" }] },
            PutMap: { id: own, movingai: movingai(rows(".")) },
            DeleteMap: { map: { id: own } },
            ListMaps: {},
            Plan: planReq(own),
            PlanMany: { requests: [planReq(own)] },
            Curve: { start: { x: 0, y: 0, heading: 0 }, goal: { x: 5, y: 1, heading: 0 }, turning_radius: 1 },
          };
          r = await outcome(rpc, reqs[rpc], tok);
        }
        const label = `${rpc} ${c}: ${r.details}`;
        expect(r.code, label).toBe(EXPECTED[rpc][c]);
        if (r.code === UNAUTHENTICATED) expect(r.details, label).toMatch(/authorization/);
        if (r.code === UNAUTHENTICATED) expect(r.details, label).not.toContain("not-a-known-token");
        if (r.code === PERMISSION_DENIED) expect(r.details, label).toMatch(/role rw.*ro/);
        if (rpc === "DeleteMap" && c === "other") expect(r.value.deleted, label).toBe(false);
        if (rpc === "DeleteMap" && c === "own") expect(r.value.deleted, label).toBe(true);
        if (rpc === "ListMaps" && r.code === 0) {
          const ids = r.value.maps.map((m: Any) => m.id);
          expect(ids, label).toContain("alice-only");
          expect(ids, label).toContain("arena"); // built-ins are shared
          expect(ids, label).not.toContain("bob-only");
        }
        if (rpc === "PlanMany" && r.code === 0) {
          expect(r.value.results[0].code, label).toBe(c === "other" ? NOT_FOUND : OK);
        }
        if (rpc === "GetMap" && r.code === 0) expect(r.value.id, label).toBe(own);
        if (rpc === "Stream" && r.code === 0) expect(r.kind, label).toBe("UPDATE_KIND_INITIAL");
        if (rpc === "Fleet" && r.code === 0) {
          // The fleet opened on alice's map: the answer to open carries its version.
          expect(r.kind, label).toBe(
            (await outcome("GetMap", { map: { id: own } }, TOKENS.alice)).value.version,
          );
        }
      }
      // Alice's PutMap of bob's id made her own map of that id: deleting it leaves bob's.
      if (rpc === "PutMap") {
        expect((await outcome("DeleteMap", { map: { id: "bob-only" } }, TOKENS.alice)).value.deleted).toBe(
          true,
        );
      }
      // Whatever alice did, bob's maps are as they were.
      expect(await bobsView()).toEqual(bobBefore);
    }, 60_000);
  }

  test("another tenant's map answers exactly as a map that does not exist", async () => {
    const pairs: [string, (id: string) => unknown][] = [
      ["GetMap", (id) => ({ map: { id } })],
      ["PatchMap", (id) => ({ map: { id }, edits: [{ x: 1, y: 1, width: 1, height: 1, tile: "@" }] })],
      ["Plan", planReq],
      ["PlanMany", (id) => ({ requests: [planReq(id)] })],
      ["DeleteMap", (id) => ({ map: { id } })],
    ];
    for (const [rpc, req] of pairs) {
      const a = await outcome(rpc, req("bob-only"), TOKENS.alice);
      const b = await outcome(rpc, req("nobody-map"), TOKENS.alice);
      const norm = (x: typeof a) =>
        JSON.stringify({ ...x, value: x.value && { ...x.value, total_micros: 0 } }).replaceAll(
          "bob-only",
          "ID",
        ).replaceAll("nobody-map", "ID");
      expect(norm(a), rpc).toBe(norm(b));
    }
    for (const rpc of ["Stream", "Fleet"]) {
      const a = await streamOutcome("bob-only", TOKENS.alice, rpc);
      const b = await streamOutcome("nobody-map", TOKENS.alice, rpc);
      expect(a.code, rpc).toBe(b.code);
      expect(a.details.replace("bob-only", "ID"), rpc).toBe(b.details.replace("nobody-map", "ID"));
    }
  });

  test("same id, two tenants: each sees its own map", async () => {
    const a = await outcome("GetMap", { map: { id: "same" } }, TOKENS.alice);
    const b = await outcome("GetMap", { map: { id: "same" } }, TOKENS.bob);
    expect(a.value.id).toBe("same");
    expect(b.value.id).toBe("same");
    expect(a.value.version).not.toBe(b.value.version);
    // Alice's "same" is open where bob's is trees: a plan across it is found for alice only.
    const pa = await outcome("Plan", planReq("same"), TOKENS.alice);
    expect(pa.value.status).toBe("PLAN_STATUS_FOUND");
    const pb = await outcome("Plan", { ...planReq("same"), goal: { x: 14.5, y: 5.5 } }, TOKENS.bob);
    expect(pb.code === 0 ? pb.value.status : pb.code).not.toBe("PLAN_STATUS_FOUND");
  });

  test("built-in maps: readable by every tenant, written only by the default tenant", async () => {
    for (const tok of [TOKENS.alice, TOKENS.aliceRo, TOKENS.bob]) {
      expect((await outcome("GetMap", { map: { id: "arena" } }, tok)).code).toBe(0);
    }
    const patch = { map: { id: "arena" }, edits: [{ x: 1, y: 1, width: 1, height: 1, tile: "@" }] };
    const denied = await outcome("PatchMap", patch, TOKENS.alice);
    expect(denied.code).toBe(PERMISSION_DENIED);
    expect(denied.details).toMatch(/built-in map "arena" is shared read-only/);
    expect((await outcome("DeleteMap", { map: { id: "arena" } }, TOKENS.bob)).code).toBe(PERMISSION_DENIED);
    expect((await outcome("PutMap", { id: "arena", movingai: movingai(rows(".")) }, TOKENS.aliceRo)).code)
      .toBe(
        PERMISSION_DENIED,
      );
    // A tenant's own copy shadows the built-in for that tenant only.
    const before = (await outcome("GetMap", { map: { id: "arena" } }, TOKENS.bob)).value.version;
    expect((await outcome("PutMap", { id: "arena", movingai: movingai(rows(".")) }, TOKENS.alice)).code).toBe(
      0,
    );
    expect((await outcome("GetMap", { map: { id: "arena" } }, TOKENS.alice)).value.width).toBe(16);
    expect((await outcome("GetMap", { map: { id: "arena" } }, TOKENS.bob)).value.version).toBe(before);
    expect((await outcome("DeleteMap", { map: { id: "arena" } }, TOKENS.alice)).value.deleted).toBe(true);
    expect((await outcome("GetMap", { map: { id: "arena" } }, TOKENS.alice)).value.version).toBe(before);
  });

  test("the data directory keeps tenants apart; a restart serves each its own maps", async () => {
    expect(existsSync(join(srv.dataDir, "tenants", "alice", "maps", "same.json"))).toBe(true);
    expect(existsSync(join(srv.dataDir, "tenants", "bob", "maps", "same.json"))).toBe(true);
    const a = (await outcome("GetMap", { map: { id: "same" } }, TOKENS.alice)).value.version;
    const b = (await outcome("GetMap", { map: { id: "same" } }, TOKENS.bob)).value.version;
    await srv.stop();
    srv = await startServer(["--auth-tokens", tokenFile], srv.dataDir);
    expect((await outcome("GetMap", { map: { id: "same" } }, TOKENS.alice)).value.version).toBe(a);
    expect((await outcome("GetMap", { map: { id: "same" } }, TOKENS.bob)).value.version).toBe(b);
    expect((await outcome("GetMap", { map: { id: "same" } }, TOKENS.admin)).code).toBe(NOT_FOUND);
  }, 120_000);

  test("the token file is re-read when it changes", async () => {
    const fresh = "carol-token-0001";
    expect((await outcome("ListMaps", {}, fresh)).code).toBe(UNAUTHENTICATED);
    writeFileSync(tokenFile, `${TOKENS.alice} alice\n${fresh} carol ro\n`);
    let code = -1;
    // The file is polled every second; a loaded machine may take a few polls.
    for (let i = 0; i < 300 && code !== 0; i++) {
      code = (await outcome("ListMaps", {}, fresh)).code;
      if (code !== 0) await new Promise((r) => setTimeout(r, 100));
    }
    expect(code).toBe(0);
    expect((await outcome("ListMaps", {}, TOKENS.bob)).code).toBe(UNAUTHENTICATED);
    // A file that does not parse keeps the previous tokens.
    writeFileSync(tokenFile, `${fresh} carol admin\n`);
    await waitForOutput(srv, /role must be rw or ro/);
    expect((await outcome("ListMaps", {}, TOKENS.alice)).code).toBe(0);
  }, 90_000);

  test("randomized: random tokens, tenants and map ids never return another tenant's data", async () => {
    // Fresh tenants t0..t3 with random maps; every read of every id by every token shows only its own maps.
    const tenants = ["t0", "t1", "t2", "t3"];
    const toks = tenants.map((t, i) => `${t}-tok-${Math.random().toString(36).slice(2, 10)}${i}`);
    writeFileSync(tokenFile, tenants.map((t, i) => `${toks[i]} ${t}`).join("\n") + "\n");
    await waitUntil(
      "the new token file is in force",
      async () => (await outcome("ListMaps", {}, toks[3])).code === 0,
    );
    const owner = new Map<string, Set<number>>(); // id -> tenants holding it
    const versions = new Map<string, string>(); // `${tenant}/${id}` -> version
    // mulberry32: a seeded generator with every bit used (an LCG in doubles loses its low bits).
    let seed = 0x9e3779b9;
    const rnd = (n: number) => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return (((t ^ (t >>> 14)) >>> 0) % n);
    };
    // Reads of an id another tenant holds and the reader does not: where a leak would show.
    let crossReads = 0;
    const heldByOther = (id: string, t: number) => [...(owner.get(id) ?? [])].some((o) => o !== t);
    const ids = Array.from({ length: 8 }, (_, i) => `m${i}`);
    for (let k = 0; k < 200; k++) {
      const t = rnd(4), id = ids[rnd(ids.length)], op = rnd(10);
      const tok = rnd(12) === 0 ? `forged-${rnd(1000)}-token` : toks[t];
      const forged = tok !== toks[t];
      if (op < 4) {
        // Open with one wall tile at a random spot of the last row: distinct versions, start and goal open.
        const x = rnd(16);
        const text = movingai(rows(".").map((l, y) => (y === 11 ? l.slice(0, x) + "@" + l.slice(x + 1) : l)));
        const r = await outcome("PutMap", { id, movingai: text }, tok);
        if (forged) expect(r.code).toBe(UNAUTHENTICATED);
        else {
          expect(r.code).toBe(0);
          if (!owner.has(id)) owner.set(id, new Set());
          owner.get(id)!.add(t);
          versions.set(`${t}/${id}`, r.value.version);
        }
      } else if (op < 5) {
        const r = await outcome("DeleteMap", { map: { id } }, tok);
        if (forged) expect(r.code).toBe(UNAUTHENTICATED);
        else {
          expect(r.value.deleted).toBe(owner.get(id)?.has(t) ?? false);
          owner.get(id)?.delete(t);
          versions.delete(`${t}/${id}`);
        }
      } else {
        const rpc = ["GetMap", "Plan", "ListMaps", "Stream"][rnd(4)];
        const mine = owner.get(id)?.has(t) ?? false;
        if (!mine && !forged && heldByOther(id, t)) crossReads++;
        if (rpc === "Stream") {
          const r = await streamOutcome(id, tok);
          expect(r.code).toBe(forged ? UNAUTHENTICATED : mine ? 0 : NOT_FOUND);
        } else if (rpc === "ListMaps") {
          const r = await outcome("ListMaps", {}, tok);
          if (forged) expect(r.code).toBe(UNAUTHENTICATED);
          else {
            const got = r.value.maps.filter((m: Any) => m.id !== "arena" && m.id !== "yard")
              .map((m: Any) => `${m.id}@${m.version}`).sort();
            const want = [...versions].filter(([k]) => k.startsWith(`${t}/`))
              .map(([k, v]) => `${k.slice(k.indexOf("/") + 1)}@${v}`).sort();
            expect(got).toEqual(want);
          }
        } else {
          const r = await outcome(rpc, rpc === "GetMap" ? { map: { id } } : planReq(id), tok);
          if (forged) expect(r.code).toBe(UNAUTHENTICATED);
          else if (!mine) expect(r.code).toBe(NOT_FOUND);
          else {
            expect(r.code).toBe(0);
            const v = rpc === "GetMap" ? r.value.version : r.value.map_version;
            expect(v).toBe(versions.get(`${t}/${id}`));
          }
        }
      }
    }
    // The sequence did reach the cases that matter (ids held by another tenant, read by one that has none).
    expect(crossReads).toBeGreaterThanOrEqual(10);
  }, 120_000);
});
