/**
 * The fleet picture tool: a fleet scenario scheduled in-process by the service's scheduler (each robot's path
 * from the worker's planning code, `planInProcess` of render.ts; start times from service/fleetScheduler.ts,
 * the same reservations the Fleet rpc uses), drawn as an animated SVG (every robot's disc moving along its
 * trajectory in fleet time, its path drawn faintly, its goal marked) and as a time strip (the same fleet at a few
 * moments side by side). The scenario is the warehouse aisle grid of the tests and the bench (fleetWarehouse.ts).
 *
 * Usage: `deno run -A src/tools/fleetRender.ts [--cols 4] [--blocks 2] [--robots 8] [--seed 3]
 * [--out docs/pictures/fleet-warehouse.svg] [--strip docs/pictures/fleet-strip.svg] [--frames 4]`
 *
 * @module
 */
import { writeFileSync } from "node:fs";
import type { Pose } from "../geometry/types.ts";
import { type Trajectory, trajectoryEnd, trajectoryPose } from "../motion/trajectory.ts";
import { FleetScheduler } from "../service/fleetScheduler.ts";
import { BUILTIN_PROFILES } from "../units/profiles.ts";
import { parseCli } from "./cli.ts";
import { movingAiText, warehouse, warehouseJobs } from "./fleetWarehouse.ts";
import { planInProcess } from "./render.ts";

/** One robot as drawn: its radius, goal, trajectory and status. */
export interface DrawnUnit {
  /** Robot id. */
  id: string;
  /** Disc radius, tiles. */
  radius: number;
  /** Where it is sent. */
  goal: { x: number; y: number };
  /** Its committed trajectory (standing before its start and after its end). */
  traj: Trajectory;
}

/** Pixels per tile. */
const SCALE = 24;
/** Seconds between the animation's key frames. */
const STEP = 0.1;

const color = (i: number, n: number) => `hsl(${Math.round((360 * i) / Math.max(1, n))} 70% 45%)`;
const f1 = (v: number) => (Math.round(v * 10) / 10).toString();

/** The blocked tiles as one SVG path, offset by (ox, oy) pixels. */
function wallsPath(rows: string[], ox = 0, oy = 0): string {
  const d: string[] = [];
  rows.forEach((row, y) => {
    for (let x = 0; x < row.length; x++) {
      if (row[x] !== "." && row[x] !== "G") {
        d.push(`M${ox + x * SCALE} ${oy + y * SCALE}h${SCALE}v${SCALE}h-${SCALE}z`);
      }
    }
  });
  return `<path d="${d.join("")}" fill="#3b3b3b"/>`;
}

/** Every robot's path (sampled poses), its goal and the map, offset by (ox, oy). */
function background(rows: string[], units: DrawnUnit[], until: number, ox = 0, oy = 0): string {
  const out = [
    `<rect x="${ox}" y="${oy}" width="${rows[0].length * SCALE}" height="${rows.length * SCALE}" ` +
    `fill="#f4f1ea"/>`,
    wallsPath(rows, ox, oy),
  ];
  units.forEach((u, i) => {
    const pts: string[] = [];
    for (let t = 0; t <= until + 1e-9; t += STEP) {
      const p = trajectoryPose(u.traj, t);
      pts.push(`${f1(ox + p.x * SCALE)},${f1(oy + p.y * SCALE)}`);
    }
    const c = color(i, units.length);
    out.push(
      `<polyline points="${pts.join(" ")}" fill="none" stroke="${c}" stroke-width="2" opacity="0.35"/>`,
    );
    const gx = ox + u.goal.x * SCALE, gy = oy + u.goal.y * SCALE, r = u.radius * SCALE;
    out.push(
      `<rect x="${f1(gx - r)}" y="${f1(gy - r)}" width="${f1(2 * r)}" height="${f1(2 * r)}" fill="none" ` +
        `stroke="${c}" stroke-width="1.5" stroke-dasharray="3 2"/>`,
    );
  });
  return out.join("\n");
}

/** The last moment any robot moves. */
export function makespan(units: DrawnUnit[]): number {
  return Math.max(0, ...units.map((u) => (u.traj.segments.length > 0 ? trajectoryEnd(u.traj) : 0)));
}

/**
 * An animated SVG: robots' discs move along their trajectories in fleet time (looping, a second's pause at the
 * end), with a bar at the bottom showing the fleet clock.
 */
export function fleetAnimationSvg(rows: string[], units: DrawnUnit[], title: string): string {
  const T = makespan(units), dur = T + 1;
  const w = rows[0].length * SCALE, h = rows.length * SCALE;
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h + 28}" viewBox="0 0 ${w} ${h + 28}">`,
    background(rows, units, T),
  ];
  units.forEach((u, i) => {
    const xs: string[] = [], ys: string[] = [];
    for (let t = 0; t <= dur + 1e-9; t += STEP) {
      const p: Pose = trajectoryPose(u.traj, Math.min(t, T));
      xs.push(f1(p.x * SCALE));
      ys.push(f1(p.y * SCALE));
    }
    const p0 = trajectoryPose(u.traj, 0);
    out.push(
      `<circle cx="${f1(p0.x * SCALE)}" cy="${f1(p0.y * SCALE)}" r="${f1(u.radius * SCALE)}" ` +
        `fill="${color(i, units.length)}" stroke="#fff" stroke-width="1">` +
        `<animate attributeName="cx" dur="${f1(dur)}s" repeatCount="indefinite" calcMode="linear" ` +
        `values="${xs.join(";")}"/>` +
        `<animate attributeName="cy" dur="${f1(dur)}s" repeatCount="indefinite" calcMode="linear" ` +
        `values="${ys.join(";")}"/></circle>`,
    );
  });
  out.push(
    `<rect x="0" y="${h + 6}" width="${w}" height="6" fill="#ddd"/>`,
    `<rect x="0" y="${h + 6}" width="0" height="6" fill="#777"><animate attributeName="width" ` +
      `dur="${f1(dur)}s" repeatCount="indefinite" values="0;${w};${w}" keyTimes="0;${
        (T / dur).toFixed(3)
      };1"/>` +
      `</rect>`,
    `<text x="4" y="${h + 25}" font-family="sans-serif" font-size="11" fill="#333">${title} — fleet clock ` +
      `0 to ${f1(T)} s</text>`,
    `</svg>`,
  );
  return out.join("\n");
}

/** A time strip: the fleet at `frames` moments from 0 to the makespan, side by side, each labelled. */
export function fleetStripSvg(rows: string[], units: DrawnUnit[], frames: number): string {
  const T = makespan(units);
  const w = rows[0].length * SCALE, h = rows.length * SCALE, gap = 12;
  const W = frames * w + (frames - 1) * gap;
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${h + 22}" viewBox="0 0 ${W} ${h + 22}">`,
  ];
  for (let k = 0; k < frames; k++) {
    const t = frames === 1 ? 0 : (k * T) / (frames - 1), ox = k * (w + gap);
    out.push(background(rows, units, T, ox, 0));
    units.forEach((u, i) => {
      const p = trajectoryPose(u.traj, t);
      out.push(
        `<circle cx="${f1(ox + p.x * SCALE)}" cy="${f1(p.y * SCALE)}" r="${f1(u.radius * SCALE)}" ` +
          `fill="${color(i, units.length)}" stroke="#fff" stroke-width="1"/>`,
      );
    });
    out.push(
      `<text x="${ox + 4}" y="${h + 16}" font-family="sans-serif" font-size="12" fill="#333">` +
        `t = ${f1(t)} s</text>`,
    );
  }
  out.push(`</svg>`);
  return out.join("\n");
}

/**
 * The warehouse scenario scheduled in-process: `robots` soldiers (discs r 0.3, 2 tiles/s) from pick bay to pick
 * bay, paths by the smooth planner, start times by the fleet scheduler. Throws when a path is not found.
 */
export function warehouseFleet(cols: number, blocks: number, robots: number, seed: number) {
  const w = warehouse(cols, blocks);
  const text = movingAiText(w.rows);
  const unit = BUILTIN_PROFILES.soldier;
  const sched = new FleetScheduler(w.rows[0].length, w.rows.length);
  const jobs = warehouseJobs(w, robots, seed);
  jobs.forEach((j, order) => {
    const start = { x: j.x, y: j.y, heading: 0 };
    const { outcome } = planInProcess(text, unit, start, { x: j.gx, y: j.gy }, "smooth");
    if (outcome.status !== "found") throw new Error(`${j.id}: no path (${outcome.status})`);
    const u = sched.addStanding({ id: j.id, order, unit }, start, 0);
    u.path = outcome.segments;
  });
  sched.settle(0, jobs.map((j) => j.id));
  const units: DrawnUnit[] = jobs.map((j) => ({
    id: j.id,
    radius: unit.boundingRadius,
    goal: { x: j.gx, y: j.gy },
    traj: sched.units.get(j.id)!.traj,
  }));
  const statuses = jobs.map((j) => sched.units.get(j.id)!.status);
  return { rows: w.rows, units, statuses };
}

if (import.meta.main) {
  const { values } = parseCli({
    usage: "deno run -A src/tools/fleetRender.ts [flags]",
    about:
      "Schedules robots in the warehouse aisle grid with the fleet scheduler and draws them as an animated " +
      "SVG and a time strip.",
    flags: {
      cols: "N  shelf columns (default 4)",
      blocks: "N  blocks of shelves (default 2)",
      robots: "N  robots (default 8)",
      seed: "N  the jobs' seed (default 3)",
      out: "FILE  animated SVG (default fleet.svg)",
      strip: "FILE  time strip SVG (optional)",
      frames: "N  frames in the strip (default 4)",
    },
  }, {
    args: Deno.args,
    options: {
      cols: { type: "string" },
      blocks: { type: "string" },
      robots: { type: "string" },
      seed: { type: "string" },
      out: { type: "string" },
      strip: { type: "string" },
      frames: { type: "string" },
    },
  });
  const int = (name: string, v: string | undefined, d: number) => {
    const n = v === undefined ? d : Number(v);
    if (!Number.isInteger(n) || n < 1) throw new Error(`--${name}: expected a positive integer, got ${v}`);
    return n;
  };
  const cols = int("cols", values.cols, 4), blocks = int("blocks", values.blocks, 2);
  const robots = int("robots", values.robots, 8), seed = int("seed", values.seed, 3);
  const { rows, units, statuses } = warehouseFleet(cols, blocks, robots, seed);
  const title = `${robots} robots, warehouse ${rows[0].length}x${rows.length}`;
  writeFileSync(values.out ?? "fleet.svg", fleetAnimationSvg(rows, units, title));
  if (values.strip) writeFileSync(values.strip, fleetStripSvg(rows, units, int("frames", values.frames, 4)));
  const moving = statuses.filter((s) => s === "moving").length;
  console.log(
    `${title}: ${moving} moving, ${robots - moving} waiting; makespan ${makespan(units).toFixed(1)} s`,
  );
}
