/**
 * Randomized maps over real gRPC: mutated Moving AI texts and raw grids of odd sizes (1 x 1, 1 x N, all
 * blocked, ...). Each PutMap is accepted or refused with INVALID_ARGUMENT / RESOURCE_EXHAUSTED and a message;
 * every accepted map then answers Plan requests of every planner with a plan status or a documented error,
 * and the server keeps serving. Random patches (out-of-range rectangles, bad tiles and codes, stale conditional
 * versions) are applied or refused with a named error, and plans keep naming the latest version. FUZZ_SEED and
 * FUZZ_N (environment) run other seeds or more maps.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import * as grpc from "@grpc/grpc-js";
import { call, PLANNERS, startServer, type TestServer } from "../helpers/server.ts";
import { rng } from "../helpers/rng.ts";

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer(["--no-demo"]);
}, 120_000);
afterAll(async () => {
  await srv?.stop();
});

const MAP_ERRORS = new Set([grpc.status.INVALID_ARGUMENT, grpc.status.RESOURCE_EXHAUSTED]);
const PLAN_ERRORS = new Set([
  grpc.status.INVALID_ARGUMENT,
  grpc.status.NOT_FOUND,
  grpc.status.DEADLINE_EXCEEDED,
]);

describe("randomized maps", () => {
  test(
    "odd and broken maps are accepted or refused cleanly; accepted ones answer every planner",
    async () => {
      const rand = rng(Number(Deno.env.get("FUZZ_SEED") ?? 4242));
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
      const problems: string[] = [];
      let accepted = 0, refused = 0, planned = 0;
      for (let m = 0; m < Number(Deno.env.get("FUZZ_N") ?? 60); m++) {
        const w = pick([1, 1, 2, 3, 5, 17, 40]), h = pick([1, 2, 3, 7, 33]);
        const density = pick([0, 0.1, 0.3, 0.6, 1]);
        let req: Record<string, unknown>;
        if (rand() < 0.3) {
          const tiles = new Uint8Array(w * h);
          for (let i = 0; i < tiles.length; i++) tiles[i] = rand() < density ? 1 : 0;
          req = { id: `raw${m}`, raw: { width: w, height: rand() < 0.1 ? h + 1 : h, tiles } };
        } else {
          const rows: string[] = [];
          for (let y = 0; y < h; y++) {
            let r = "";
            for (let x = 0; x < w; x++) {
              r += rand() < density ? "@" : pick([".", ".", ".", "G", "S", "T", "W"]);
            }
            rows.push(r);
          }
          let text = `type octile\nheight ${h}\nwidth ${w}\nmap\n${rows.join("\n")}\n`;
          // Mutations: a cut, a changed character, Windows line ends, a wrong header.
          const mutation = rand();
          if (mutation < 0.1) text = text.slice(0, Math.floor(rand() * text.length));
          else if (mutation < 0.2) {
            const i = Math.floor(rand() * text.length);
            text = text.slice(0, i) + pick(["x", "\n", " ", "9", "é"]) + text.slice(i + 1);
          } else if (mutation < 0.3) text = text.replace(/\n/g, "\r\n");
          else if (mutation < 0.35) text = text.replace(`width ${w}`, `width ${w + 1}`);
          req = { id: `mt${m}`, movingai: text };
        }
        let info;
        try {
          info = await call(srv.client, "PutMap", req);
        } catch (e) {
          const err = e as grpc.ServiceError;
          if (!MAP_ERRORS.has(err.code) || !err.details) {
            problems.push(
              `map ${m}: PutMap ${err.code} ${err.details}`,
            );
          }
          refused++;
          continue;
        }
        accepted++;
        for (const planner of PLANNERS) {
          const unit = pick([{ name: "agent" }, { name: "tank" }, { name: "jeep" }, { radius: 0.4 }]);
          const sx = rand() * w, sy = rand() * h, gx = rand() * w, gy = rand() * h;
          try {
            const res = await call(srv.client, "Plan", {
              map: { id: info.id },
              unit,
              start: { x: sx, y: sy, heading: rand() * 6 - 3 },
              goal: { x: gx, y: gy },
              planner,
              options: { max_millis: 2000, nearest_fallback: rand() < 0.3 },
            });
            if (!String(res.status).startsWith("PLAN_STATUS_") || res.status === "PLAN_STATUS_UNSPECIFIED") {
              problems.push(`map ${m} ${planner}: status ${res.status}`);
            }
            planned++;
          } catch (e) {
            const err = e as grpc.ServiceError;
            if (!PLAN_ERRORS.has(err.code) || !err.details) {
              problems.push(`map ${m} ${planner}: Plan ${err.code} ${err.details}`);
            }
          }
        }
      }
      expect(problems).toEqual([]);
      expect(accepted).toBeGreaterThan(10);
      expect(refused).toBeGreaterThan(3);
      expect(planned).toBeGreaterThan(20);
      const list = await call(srv.client, "ListMaps", {});
      expect(list.maps.length).toBe(accepted);
      expect(srv.proc.exitCode).toBeNull();
    },
    300_000,
  );

  test(
    "random patches on a map: applied, or refused with a named error; the map and its plans stay consistent",
    async () => {
      const rand = rng(Number(Deno.env.get("FUZZ_SEED") ?? 31337));
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
      const W = 30, H = 20;
      const rows = Array.from({ length: H }, () => ".".repeat(W));
      let info = await call(srv.client, "PutMap", {
        id: "patched",
        movingai: `type octile\nheight ${H}\nwidth ${W}\nmap\n${rows.join("\n")}\n`,
      });
      const problems: string[] = [];
      let applied = 0, refused = 0;
      for (let k = 0; k < 150; k++) {
        const edits = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => {
          const edit: Record<string, unknown> = {
            x: rand() < 0.1 ? pick([W, W + 5, 4294967295]) : Math.floor(rand() * W),
            y: rand() < 0.1 ? pick([H, 1e6]) : Math.floor(rand() * H),
            width: pick([0, 1, 2, 5, 40, 4294967295]),
            height: pick([0, 1, 3, 25]),
          };
          if (rand() < 0.8) edit.tile = pick(["@", ".", "G", "T", "", "@@", "é"]);
          else edit.code = pick([46, 64, 0, 255, 256, 70000]);
          return edit;
        });
        const conditional = rand() < 0.15;
        const req = {
          map: { id: "patched", ...(conditional ? { version: rand() < 0.5 ? info.version : "stale" } : {}) },
          edits,
        };
        try {
          info = await call(srv.client, "PatchMap", req);
          applied++;
        } catch (e) {
          const err = e as grpc.ServiceError;
          refused++;
          const named = /edits\[\d+\]|map\.version|version/.test(err.details);
          const code = [grpc.status.INVALID_ARGUMENT, grpc.status.FAILED_PRECONDITION, grpc.status.NOT_FOUND]
            .includes(err.code);
          if (!named || !code) problems.push(`patch ${k} ${JSON.stringify(req)}: ${err.code} ${err.details}`);
        }
        // The map still plans: some planner on the latest version.
        try {
          const res = await call(srv.client, "Plan", {
            map: { id: "patched" },
            start: { x: 0.5 + Math.floor(rand() * W), y: 0.5 + Math.floor(rand() * H) },
            goal: { x: 0.5 + Math.floor(rand() * W), y: 0.5 + Math.floor(rand() * H) },
            planner: pick(["PLANNER_GRID", "PLANNER_SMOOTH", "PLANNER_HIERARCHICAL", "PLANNER_AUTO"]),
          });
          if (res.map_version !== info.version) {
            problems.push(`plan after patch ${k}: version ${res.map_version} != ${info.version}`);
          }
        } catch (e) {
          const err = e as grpc.ServiceError;
          if (err.code !== grpc.status.INVALID_ARGUMENT) {
            problems.push(`plan after patch ${k}: ${err.code} ${err.details}`);
          }
        }
      }
      expect(problems).toEqual([]);
      expect(applied).toBeGreaterThan(20);
      expect(refused).toBeGreaterThan(20);
      const got = await call(srv.client, "GetMap", { map: { id: "patched" } });
      expect(got.version).toBe(info.version);
    },
    300_000,
  );
});
