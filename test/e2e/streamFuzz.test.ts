/**
 * Randomized streams over real gRPC: streams with different units and planners, random progress reports,
 * goal changes and early endings, under random patches (some invalid). Every update is well formed; every path
 * an update returns as found is collision-free for the unit's disc on the map version it names (a client-side
 * mirror per version); the server keeps serving. FUZZ_SEED and FUZZ_STEPS (environment) run other seeds or more
 * steps.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import * as grpc from "@grpc/grpc-js";
import { call, callError, startServer, type TestServer } from "../helpers/server.ts";
import { type BlockGrid, firstCollision } from "../helpers/movingai.ts";
import { rng } from "../helpers/rng.ts";
import { applyUpdate, type ClientSegment, worstJoin } from "../helpers/splice.ts";

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer(["--no-demo"]);
}, 120_000);
afterAll(async () => {
  await srv?.stop();
});

const W = 48, H = 48;

function initialGrid(): BlockGrid {
  const g: BlockGrid = { width: W, height: H, blocked: new Uint8Array(W * H) };
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const border = x === 0 || y === 0 || x === W - 1 || y === H - 1;
      const wall = (x === 16 && y < 30) || (x === 32 && y > 18);
      g.blocked[y * W + x] = border || wall ? 1 : 0;
    }
  }
  return g;
}

function mapText(g: BlockGrid): string {
  const rows: string[] = [];
  for (let y = 0; y < H; y++) {
    let r = "";
    for (let x = 0; x < W; x++) r += g.blocked[y * W + x] ? "@" : ".";
    rows.push(r);
  }
  return `type octile\nheight ${H}\nwidth ${W}\nmap\n${rows.join("\n")}\n`;
}

// Disc units (the mirror check sweeps a disc) and their radii; the boat is left out: it moves on water only.
const UNITS: [Record<string, unknown>, number][] = [
  [{ name: "agent" }, 0],
  [{ name: "soldier" }, 0.3],
  [{ name: "tank" }, 0.9],
  [{ radius: 0.6, turning_radius: 1.2, can_reverse: true }, 0.6],
];
const PLANNERS = ["PLANNER_AUTO", "PLANNER_GRID", "PLANNER_SMOOTH", "PLANNER_HYBRID", "PLANNER_CURVED"];
const KINDS = new Set([
  "UPDATE_KIND_INITIAL",
  "UPDATE_KIND_REFINED",
  "UPDATE_KIND_REPLANNED",
  "UPDATE_KIND_GOAL_CHANGED",
  "UPDATE_KIND_STATUS",
]);

// deno-lint-ignore no-explicit-any
type Update = any;

describe("randomized streams under random patches", () => {
  test("updates are well formed and legal on the version they name; the server keeps serving", async () => {
    const rand = rng(Number(Deno.env.get("FUZZ_SEED") ?? 777));
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
    let grid = initialGrid();
    const info = await call(srv.client, "PutMap", { id: "fz", movingai: mapText(grid) });
    const versions = new Map<string, BlockGrid>([[info.version, grid]]);
    const openTile = (margin: number) => {
      for (;;) {
        const x = 2 + Math.floor(rand() * (W - 4)), y = 2 + Math.floor(rand() * (H - 4));
        let ok = true;
        for (let dy = -margin; dy <= margin && ok; dy++) {
          for (let dx = -margin; dx <= margin && ok; dx++) {
            if (grid.blocked[(y + dy) * W + x + dx]) ok = false;
          }
        }
        if (ok) return { x: x + 0.5, y: y + 0.5 };
      }
    };
    const problems: string[] = [];
    let updates = 0, found = 0;
    // Updates are checked at the end: one can name a version before the PatchMap call that made it returns.
    const received: [Update, number, string][] = [];
    const check = (u: Update, radius: number, where: string) => {
      if (!KINDS.has(u.kind)) problems.push(`${where}: kind ${u.kind}`);
      if (u.kind === "UPDATE_KIND_STATUS") return;
      if (u.plan?.status !== "PLAN_STATUS_FOUND") return;
      found++;
      const g = versions.get(u.map_version);
      if (!g) {
        problems.push(`${where}: unknown map version ${u.map_version}`);
        return;
      }
      const hit = firstCollision(g, u.plan.segments, radius);
      if (hit) problems.push(`${where}: ${u.plan.stats.planner} hits a blocked tile at ${hit.x},${hit.y}`);
    };
    interface Open {
      stream: grpc.ClientDuplexStream<unknown, unknown>;
      radius: number;
      ended: boolean;
      last: Update | null;
      /** The path as the client holds it, every update applied (whole, or the rest replaced). */
      path: ClientSegment[];
    }
    let spliced = 0;
    const streams: Open[] = [];
    for (let i = 0; i < 24; i++) {
      const [unit, radius] = pick(UNITS);
      const name = String(unit.name ?? `disc ${radius}`);
      const margin = Math.ceil(radius) + 1;
      const stream = srv.client.Stream();
      const s: Open = { stream, radius, ended: false, last: null, path: [] };
      stream.on("data", (u: Update) => {
        updates++;
        received.push([u, radius, `stream ${i} (${name})`]);
        if (u.plan?.status === "PLAN_STATUS_FOUND") s.last = u;
        if (!u.plan) return;
        // Updates arrive in order per stream: a replacement applies to the path the client holds now.
        if (u.replace_from_segment >= 0) {
          spliced++;
          if (u.replace_from_segment >= s.path.length) {
            problems.push(`stream ${i}: replace_from_segment ${u.replace_from_segment} of ${s.path.length}`);
            return;
          }
        }
        s.path = applyUpdate(s.path, u);
        // Positions only: line planners' corners are heading jumps (turns in place).
        const gap = worstJoin(s.path, false);
        if (gap > 1e-9) {
          problems.push(`stream ${i}: the client's path has a gap of ${gap} after update ${u.sequence}`);
        }
      });
      stream.on("error", (e: grpc.ServiceError) => {
        s.ended = true;
        // Writes racing the stream's end fail on the client side only (no gRPC code).
        if (typeof e.code !== "number") return;
        if (e.code !== grpc.status.CANCELLED) problems.push(`stream ${i}: error ${e.code} ${e.details}`);
      });
      stream.on("end", () => (s.ended = true));
      stream.write({
        plan: {
          map: { id: "fz" },
          unit,
          start: { ...openTile(margin), heading: rand() * 6.28 - 3.14 },
          goal: openTile(margin),
          planner: pick(PLANNERS),
          options: { max_millis: 2000 },
        },
      });
      streams.push(s);
    }
    // Every stream answers its plan before the map starts changing (a start is only valid on the map it was
    // picked on).
    for (let wait = 0; wait < 600 && streams.some((s) => !s.ended && s.last === null); wait++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const live = (s: Open) => !s.ended && s.stream.writable;
    for (let step = 0; step < Number(Deno.env.get("FUZZ_STEPS") ?? 60); step++) {
      const action = rand();
      if (action < 0.35) {
        // A patch: a short wall or a cleared stretch, inside the border; sometimes an invalid edit.
        if (rand() < 0.1) {
          const err = await callError(srv.client, "PatchMap", {
            map: { id: "fz" },
            edits: [{ x: W + 3, y: 2, tile: "@" }],
          });
          expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
          continue;
        }
        const x = 2 + Math.floor(rand() * (W - 8)), y = 2 + Math.floor(rand() * (H - 8));
        const vertical = rand() < 0.5;
        const edit = {
          x,
          y,
          width: vertical ? 1 : 5,
          height: vertical ? 5 : 1,
          tile: rand() < 0.7 ? "@" : ".",
        };
        const next: BlockGrid = { width: W, height: H, blocked: grid.blocked.slice() };
        for (let yy = y; yy < y + edit.height; yy++) {
          for (let xx = x; xx < x + edit.width; xx++) next.blocked[yy * W + xx] = edit.tile === "@" ? 1 : 0;
        }
        const v = await call(srv.client, "PatchMap", { map: { id: "fz" }, edits: [edit] });
        versions.set(v.version, next);
        grid = next;
      } else if (action < 0.7) {
        const s = pick(streams);
        if (live(s)) s.stream.write({ progress: { distance: rand() * 5 } });
      } else if (action < 0.85) {
        const s = pick(streams);
        if (live(s)) s.stream.write({ goal: openTile(Math.ceil(s.radius) + 1) });
      } else if (action < 0.9) {
        const s = pick(streams);
        if (!s.ended) {
          s.stream.cancel();
          s.ended = true;
        }
      }
      await new Promise((r) => setTimeout(r, 20 + rand() * 40));
    }
    // Let replans settle, then every open stream's latest found path is legal on the final map.
    let seen = -1;
    while (seen !== updates) {
      seen = updates;
      await new Promise((r) => setTimeout(r, 1500));
    }
    for (const [i, s] of streams.entries()) {
      if (s.ended || !s.last || s.last.map_version !== [...versions.keys()].at(-1)) continue;
      const hit = firstCollision(grid, s.last.plan.segments, s.radius);
      if (hit) problems.push(`stream ${i}: final path hits ${hit.x},${hit.y}`);
    }
    for (const s of streams) if (live(s)) s.stream.end();
    for (const [u, radius, where] of received) check(u, radius, where);
    if (Deno.env.get("FUZZ_VERBOSE")) console.log({ updates, found, spliced, versions: versions.size });
    expect(problems).toEqual([]);
    expect(updates).toBeGreaterThan(40);
    expect(found).toBeGreaterThan(20);
    const ping = await call(srv.client, "GetMap", { map: { id: "fz" } });
    expect(ping.version).toBe([...versions.keys()].at(-1));
    expect(srv.proc.exitCode).toBeNull();
  }, 300_000);

  test(
    "bad stream messages: a bad first message ends the stream with a named error; bad later ones do not crash",
    async () => {
      await call(srv.client, "PutMap", { id: "fz2", movingai: mapText(initialGrid()) });
      const good = {
        map: { id: "fz2" },
        start: { x: 4.5, y: 4.5 },
        goal: { x: 40.5, y: 40.5 },
        planner: "PLANNER_GRID",
      };
      const firsts: [object, RegExp][] = [
        [{ goal: { x: 1, y: 1 } }, /first message/],
        [{ plan: { ...good, map: { id: "missing" } } }, /map\.id/],
        [{ plan: { ...good, start: { x: NaN, y: 4.5 } } }, /start\.x/],
        [{ plan: { ...good, unit: { name: "hovercraft" } } }, /unit\.name/],
        [{ plan: { ...good, start: { x: 4.5, y: 4.5, heading: 1e300 } } }, /start\.heading/],
      ];
      for (const [first, pattern] of firsts) {
        const st = srv.client.Stream();
        const err = await new Promise<grpc.ServiceError | null>((res) => {
          // A stream left open (the error sent as a status update instead) fails here, not by hanging.
          const timer = setTimeout(() => res(null), 10_000);
          st.on("data", () => {});
          st.on("error", (e: grpc.ServiceError) => {
            clearTimeout(timer);
            res(e);
          });
          st.on("end", () => {
            clearTimeout(timer);
            res(null);
          });
          st.write(first);
        });
        st.cancel();
        expect(err, JSON.stringify(first)).not.toBeNull();
        expect([grpc.status.INVALID_ARGUMENT, grpc.status.NOT_FOUND]).toContain(err!.code);
        expect(err!.details).toMatch(pattern);
      }
      // A good stream that then gets nonsense progress and goals: it answers with status updates and lives on.
      const st = srv.client.Stream();
      const updates: Update[] = [];
      st.on("data", (u: Update) => updates.push(u));
      st.on("error", () => {});
      st.write({ plan: good });
      for (let k = 0; k < 600 && updates.length === 0; k++) await new Promise((r) => setTimeout(r, 50));
      expect(updates[0]?.kind).toBe("UPDATE_KIND_INITIAL");
      st.write({ progress: { pose: { x: NaN, y: 3, heading: 0 } } });
      st.write({ progress: { distance: -5 } });
      st.write({ goal: { x: 1e9, y: 2 } });
      st.write({ goal: { x: 20.5, y: 20.5, heading: 1e300 } });
      st.write({ plan: good });
      st.write({ goal: { x: 30.5, y: 10.5 } });
      await new Promise((r) => setTimeout(r, 1500));
      // The answers to the nonsense come later on a loaded machine: wait for the status ones (30 s at most).
      for (let k = 0; k < 600 && !updates.some((u) => u.kind === "UPDATE_KIND_STATUS"); k++) {
        await new Promise((r) => setTimeout(r, 50));
      }
      const kinds = updates.map((u) => u.kind);
      expect(kinds).toContain("UPDATE_KIND_STATUS");
      for (const u of updates) expect(KINDS.has(u.kind)).toBe(true);
      st.end();
      const alive = await call(srv.client, "GetMap", { map: { id: "fz2" } });
      expect(alive.id).toBe("fz2");
      expect(srv.proc.exitCode).toBeNull();
    },
    120_000,
  );
});
