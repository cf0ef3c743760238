/**
 * PLANNER_CURVED end to end over gRPC: every FOUND path on the demo yard and the shared Moving AI maps is checked
 * by an independent dense sampler (footprint against blocked tile interiors, curvature, joins, start and goal);
 * the approximation flags (touches_blocked, tightened) agree with the sampler; backing up out of a dead end
 * gives reverse segments and cusps; fixed-angle art keeps every line on a legal heading.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { call, startServer, type TestServer } from "../helpers/server.ts";
import { type BlockGrid, blockGrid, discOverlapsBlocked, mapNames, mapText } from "../helpers/movingai.ts";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../helpers/server.ts";
import { rng } from "../helpers/rng.ts";

let srv: TestServer;
const grids = new Map<string, BlockGrid>();

/** The dead end: a 3-tile corridor off a room; the unit starts deep inside facing the closed end. */
function deadEndMap(): string {
  const W = 30, H = 20;
  const rows: string[] = [];
  for (let y = 0; y < H; y++) {
    let r = "";
    for (let x = 0; x < W; x++) {
      const border = x === 0 || y === 0 || x === W - 1 || y === H - 1;
      r += !border && ((y >= 5 && y <= 7) || x >= 13) ? "." : "@";
    }
    rows.push(r);
  }
  return `type octile\nheight ${H}\nwidth ${W}\nmap\n${rows.join("\n")}\n`;
}

beforeAll(async () => {
  // The shared arena.map is uploaded under its own id, which is also a built-in demo map (read-only by default).
  srv = await startServer(["--writable-demo-maps"]);
  grids.set("yard", blockGrid(readFileSync(join(ROOT, "demo/maps/yard.map"), "utf8")));
  for (const name of mapNames()) {
    const id = name.replace(/\.map$/, "");
    await call(srv.client, "PutMap", { id, movingai: mapText(name) });
    grids.set(id, blockGrid(mapText(name)));
  }
  await call(srv.client, "PutMap", { id: "deadend", movingai: deadEndMap() });
  grids.set("deadend", blockGrid(deadEndMap()));
}, 180_000);

afterAll(async () => {
  await srv?.stop();
});

/** A footprint as the sampler sees it. */
interface Shape {
  radius: number;
  width: number;
  length: number;
}

function blockedAt(g: BlockGrid, tx: number, ty: number): boolean {
  return tx < 0 || ty < 0 || tx >= g.width || ty >= g.height || g.blocked[ty * g.width + tx] === 1;
}

/** True if the rectangle (center, heading, grown by `grow`) overlaps a blocked tile's interior (separating axes). */
function rectOverlapsBlocked(g: BlockGrid, x: number, y: number, h: number, s: Shape, grow: number): boolean {
  const hl = s.length / 2 + grow, hw = s.width / 2 + grow;
  const c = Math.cos(h), sn = Math.sin(h);
  const ex = hl * Math.abs(c) + hw * Math.abs(sn), ey = hl * Math.abs(sn) + hw * Math.abs(c);
  for (let ty = Math.floor(y - ey) - 1; ty <= Math.floor(y + ey) + 1; ty++) {
    for (let tx = Math.floor(x - ex) - 1; tx <= Math.floor(x + ex) + 1; tx++) {
      if (!blockedAt(g, tx, ty)) continue;
      const dx = tx + 0.5 - x, dy = ty + 0.5 - y;
      if (Math.abs(dx) >= ex + 0.5 - 1e-9 || Math.abs(dy) >= ey + 0.5 - 1e-9) continue;
      const sq = 0.5 * (Math.abs(c) + Math.abs(sn));
      if (Math.abs(dx * c + dy * sn) >= hl + sq - 1e-9) continue;
      if (Math.abs(-dx * sn + dy * c) >= hw + sq - 1e-9) continue;
      return true;
    }
  }
  return false;
}

function overlaps(g: BlockGrid, x: number, y: number, h: number, s: Shape, grow = 0): boolean {
  if (s.width > 0) return rectOverlapsBlocked(g, x, y, h, s, grow);
  return discOverlapsBlocked(g, x, y, s.radius + grow);
}

// deno-lint-ignore no-explicit-any
type Wire = any;

/** The pose at u along a wire segment, integrated in closed form here (independent of src/geometry). */
function at(s: Wire, u: number): { x: number; y: number; h: number } {
  const h0 = s.start.heading, k = s.curvature, d = s.direction;
  if (Math.abs(k) < 1e-15) {
    return { x: s.start.x + d * u * Math.cos(h0), y: s.start.y + d * u * Math.sin(h0), h: h0 };
  }
  const h = h0 + d * k * u;
  return {
    x: s.start.x + (Math.sin(h) - Math.sin(h0)) / k,
    y: s.start.y - (Math.cos(h) - Math.cos(h0)) / k,
    h,
  };
}

function angleGap(a: number, b: number): number {
  const d = Math.abs((((a - b) % (2 * Math.PI)) + 3 * Math.PI) % (2 * Math.PI) - Math.PI);
  return d;
}

/** True if the footprint overlaps a blocked tile anywhere on the segment (dense: step 0.01 tile). */
function segmentCollides(g: BlockGrid, s: Wire, shape: Shape, grow = 0): boolean {
  const n = Math.max(1, Math.ceil(s.length / 0.01));
  for (let i = 0; i <= n; i++) {
    const p = at(s, (s.length * i) / n);
    if (overlaps(g, p.x, p.y, p.h, shape, grow)) return true;
  }
  return false;
}

interface CheckSpec {
  grid: BlockGrid;
  shape: Shape;
  turningRadius: number;
  start: { x: number; y: number; heading: number };
  goal: { x: number; y: number; heading?: number };
  tighter?: boolean;
  ignoreObstacles?: boolean;
  headings?: number;
}

/** Independent legality checks of a FOUND response; returns the problems found. */
function checkPath(res: Wire, c: CheckSpec): string[] {
  const errs: string[] = [];
  const segs: Wire[] = res.segments;
  if (segs.length === 0) {
    if (Math.hypot(c.goal.x - c.start.x, c.goal.y - c.start.y) > 0.5) errs.push("no segments");
    return errs;
  }
  const first = segs[0].start;
  if (Math.hypot(first.x - c.start.x, first.y - c.start.y) > 1e-6) errs.push("does not start at the start");
  if (c.turningRadius > 0 && !c.headings && angleGap(first.heading, c.start.heading) > 1e-6) {
    errs.push("does not start with the start heading");
  }
  const last = segs[segs.length - 1];
  const end = at(last, last.length);
  if (Math.hypot(end.x - c.goal.x, end.y - c.goal.y) > 0.5 + 1e-9) errs.push("ends away from the goal");
  if (c.goal.heading !== undefined && !c.headings && angleGap(end.h, c.goal.heading) > 0.2 + 1e-9) {
    errs.push("ends with the wrong heading");
  }
  let total = 0;
  segs.forEach((s, i) => {
    total += s.length;
    const e = at(s, s.length);
    if (Math.hypot(e.x - s.end.x, e.y - s.end.y) > 1e-6 || angleGap(e.h, s.end.heading) > 1e-6) {
      errs.push(`segment ${i}: stated end differs from the integration`);
    }
    if (i > 0) {
      const p = segs[i - 1].end;
      if (Math.hypot(p.x - s.start.x, p.y - s.start.y) > 1e-6) errs.push(`segment ${i}: position join`);
      if (c.turningRadius > 0 && !c.headings && angleGap(p.heading, s.start.heading) > 1e-6) {
        errs.push(`segment ${i}: heading join`);
      }
      // A heading jump is a turn in place: the footprint must stay clear while it rotates (0.01 rad steps).
      const jump = Math.atan2(Math.sin(s.start.heading - p.heading), Math.cos(s.start.heading - p.heading));
      const steps = Math.ceil(Math.abs(jump) / 0.01);
      for (let k = 1; k < steps; k++) {
        if (overlaps(c.grid, s.start.x, s.start.y, p.heading + (jump * k) / steps, c.shape)) {
          errs.push(`segment ${i}: footprint hits a blocked tile turning in place`);
          break;
        }
      }
    }
    if (c.turningRadius > 0 && Math.abs(s.curvature) > 1 / c.turningRadius + 1e-9) {
      if (!c.tighter) errs.push(`segment ${i}: curvature ${s.curvature} above 1/${c.turningRadius}`);
      else if (!s.tightened) errs.push(`segment ${i}: tighter than the radius but not flagged`);
      if (Math.abs(s.curvature) > 1 / 0.25 + 1e-9) errs.push(`segment ${i}: tighter than the floor`);
    }
    if (s.tightened && !c.tighter) errs.push(`segment ${i}: tightened without the option`);
    if (c.headings) {
      const step = (2 * Math.PI) / c.headings;
      if (s.curvature !== 0) errs.push(`segment ${i}: an arc in a fixed-angle path`);
      const q = s.start.heading / step;
      if (Math.abs(q - Math.round(q)) * step > 1e-9) {
        errs.push(`segment ${i}: heading ${s.start.heading} not legal`);
      }
    }
    const hit = segmentCollides(c.grid, s, c.shape);
    if (c.ignoreObstacles) {
      if (hit && !s.touches_blocked) errs.push(`segment ${i}: touches a blocked tile but is not flagged`);
      // The server's check is conservative by at most 0.05 tile: a flagged segment comes within that of a wall.
      if (s.touches_blocked && !segmentCollides(c.grid, s, c.shape, 0.06)) {
        errs.push(`segment ${i}: flagged but clear of blocked tiles`);
      }
    } else if (hit) {
      errs.push(`segment ${i}: footprint overlaps a blocked tile`);
    }
  });
  if (Math.abs(total - res.length) > 1e-6) errs.push(`length ${res.length} differs from the sum ${total}`);
  return errs;
}

/** Open tiles for a disc of radius r (center clearance), and 4-connected BFS distances from a tile. */
function bfs(g: BlockGrid, r: number, from: number): Int32Array {
  const dist = new Int32Array(g.width * g.height).fill(-1);
  const open = (t: number) =>
    !overlaps(g, (t % g.width) + 0.5, Math.floor(t / g.width) + 0.5, 0, { radius: r, width: 0, length: 0 });
  if (!open(from)) return dist;
  const queue = [from];
  dist[from] = 0;
  for (let qi = 0; qi < queue.length; qi++) {
    const t = queue[qi], x = t % g.width, y = Math.floor(t / g.width);
    for (const [nx, ny] of [[x + 1, y], [x - 1, y], [x, y + 1], [x, y - 1]]) {
      if (nx < 0 || ny < 0 || nx >= g.width || ny >= g.height) continue;
      const n = ny * g.width + nx;
      if (dist[n] >= 0 || !open(n)) continue;
      dist[n] = dist[t] + 1;
      queue.push(n);
    }
  }
  return dist;
}

/** Seeded start/goal pairs: open tiles in the same component, BFS distance in [4, maxDist]. */
function pairs(g: BlockGrid, r: number, count: number, seed: number, maxDist: number) {
  const rand = rng(seed);
  const out: { sx: number; sy: number; gx: number; gy: number; h: number; gh: number }[] = [];
  for (let tries = 0; out.length < count && tries < count * 200; tries++) {
    const s = Math.floor(rand() * g.width * g.height);
    const d = bfs(g, r, s);
    if (d[s] !== 0) continue;
    const cands: number[] = [];
    for (let t = 0; t < d.length; t++) if (d[t] >= 4 && d[t] <= maxDist) cands.push(t);
    if (cands.length === 0) continue;
    const e = cands[Math.floor(rand() * cands.length)];
    out.push({
      sx: (s % g.width) + 0.5,
      sy: Math.floor(s / g.width) + 0.5,
      gx: (e % g.width) + 0.5,
      gy: Math.floor(e / g.width) + 0.5,
      h: (rand() * 2 - 1) * Math.PI,
      gh: (rand() * 2 - 1) * Math.PI,
    });
  }
  return out;
}

interface UnitCase {
  label: string;
  unit: Wire;
  shape: Shape;
  turningRadius: number;
  bounding: number;
  headings?: number;
}

const UNITS: UnitCase[] = [
  {
    label: "disc r=0.4 turning 1.5",
    unit: { turning_radius: 1.5, radius: 0.4 },
    shape: { radius: 0.4, width: 0, length: 0 },
    turningRadius: 1.5,
    bounding: 0.4,
  },
  {
    label: "jeep",
    unit: { name: "jeep" },
    shape: { radius: 0, width: 0.8, length: 1.4 },
    turningRadius: 2,
    bounding: Math.hypot(0.4, 0.7),
  },
  {
    label: "tank",
    unit: { name: "tank" },
    shape: { radius: 0.9, width: 0, length: 0 },
    turningRadius: 1.5,
    bounding: 0.9,
  },
];

interface Tally {
  found: number;
  other: number;
}

async function runCases(
  map: string,
  uc: UnitCase,
  count: number,
  seed: number,
  opts: { tighter?: boolean; ignore?: boolean; backing?: boolean; goalHeading?: boolean; maxDist?: number } =
    {},
): Promise<{ tally: Tally; errs: string[] }> {
  const g = grids.get(map)!;
  const tally: Tally = { found: 0, other: 0 };
  const errs: string[] = [];
  for (const p of pairs(g, uc.bounding, count, seed, opts.maxDist ?? 60)) {
    const goal = { x: p.gx, y: p.gy, heading: opts.goalHeading ? p.gh : undefined };
    const res = await call(srv.client, "Plan", {
      map: { id: map },
      // Backing up needs a unit that may reverse (it is refused otherwise).
      unit: opts.backing ? { ...uc.unit, can_reverse: true } : uc.unit,
      start: { x: p.sx, y: p.sy, heading: p.h },
      goal,
      planner: "PLANNER_CURVED",
      options: {
        tighter_turns: !!opts.tighter,
        ignore_obstacles_in_curves: !!opts.ignore,
        allow_backing_up: !!opts.backing,
      },
    });
    const where = `${map} ${uc.label} (${p.sx},${p.sy},${p.h.toFixed(3)}) -> (${p.gx},${p.gy})`;
    if (res.status === "PLAN_STATUS_FOUND") {
      tally.found++;
      expect(res.stats.planner).toBe("PLANNER_CURVED");
      for (
        const e of checkPath(res, {
          grid: g,
          shape: uc.shape,
          turningRadius: uc.turningRadius,
          start: { x: p.sx, y: p.sy, heading: p.h },
          goal,
          tighter: opts.tighter,
          ignoreObstacles: opts.ignore,
          headings: uc.headings,
        })
      ) errs.push(`${where}: ${e}`);
      if (opts.ignore) expect(res.message).toMatch(/approximation/);
    } else {
      tally.other++;
      if (res.message === "") errs.push(`${where}: status ${res.status} without a message`);
      if (res.status !== "PLAN_STATUS_BUDGET_EXHAUSTED" && res.segments.length > 0) {
        errs.push(`${where}: status ${res.status} with segments`);
      }
    }
  }
  return { tally, errs };
}

describe("PLANNER_CURVED legality on the demo yard", () => {
  for (const uc of UNITS) {
    test(`${uc.label}: every FOUND path is legal`, async () => {
      const { tally, errs } = await runCases("yard", uc, 30, 11);
      expect(errs).toEqual([]);
      expect(tally.found).toBeGreaterThan(15);
    }, 300_000);
    test(`${uc.label} with a goal heading, backing up allowed: legal, and found more often`, async () => {
      const { tally, errs } = await runCases(
        "yard",
        { ...uc, unit: { ...uc.unit, can_reverse: true } },
        20,
        12,
        {
          goalHeading: true,
          backing: true,
        },
      );
      expect(errs).toEqual([]);
      expect(tally.found).toBeGreaterThan(12);
    }, 300_000);
  }

  test(
    "tighter_turns: tightened segments only when requested, all flagged, none below the floor",
    async () => {
      const uc = UNITS[1];
      const plain = await runCases("yard", uc, 20, 13);
      expect(plain.errs).toEqual([]);
      const tight = await runCases("yard", uc, 20, 13, { tighter: true });
      expect(tight.errs).toEqual([]);
      expect(tight.tally.found).toBeGreaterThanOrEqual(plain.tally.found);
    },
    300_000,
  );

  test("ignore_obstacles_in_curves: always FOUND, touches_blocked agrees with the sampler", async () => {
    const { tally, errs } = await runCases("yard", UNITS[2], 20, 14, { ignore: true });
    expect(errs).toEqual([]);
    expect(tally.other).toBe(0);
  }, 300_000);
});

describe("PLANNER_CURVED legality on the shared Moving AI maps", () => {
  for (const name of mapNames()) {
    const id = name.replace(/\.map$/, "");
    test(id, async () => {
      let found = 0;
      const errs: string[] = [];
      for (const [i, uc] of UNITS.entries()) {
        const r = await runCases(id, uc, 4, 100 + i, { maxDist: 40 });
        found += r.tally.found;
        errs.push(...r.errs);
        const t = await runCases(id, uc, 3, 200 + i, { maxDist: 40, tighter: true, backing: true });
        found += t.tally.found;
        errs.push(...t.errs);
      }
      expect(errs).toEqual([]);
      // maze512-1 has one-tile corridors: nothing with a turning radius fits; elsewhere most plans succeed.
      if (!id.startsWith("maze")) expect(found).toBeGreaterThan(0);
    }, 600_000);
  }
});

describe("budgets", () => {
  test(
    "an exhausted expansion budget gives BUDGET_EXHAUSTED with a message and a legal partial path",
    async () => {
      const res = await call(srv.client, "Plan", {
        map: { id: "yard" },
        unit: { turning_radius: 1.5, radius: 0.4 },
        start: { x: 30.5, y: 5.5, heading: 1.5 },
        goal: { x: 55.5, y: 55.5 },
        planner: "PLANNER_CURVED",
        options: { max_expansions: 40 },
      });
      expect(res.status).toBe("PLAN_STATUS_BUDGET_EXHAUSTED");
      expect(res.message).toMatch(/budget/);
      const segs: Wire[] = res.segments;
      expect(segs.length).toBeGreaterThan(0);
      expect(Math.hypot(segs[0].start.x - 30.5, segs[0].start.y - 5.5)).toBeLessThan(1e-9);
      const g = grids.get("yard")!;
      for (const s of segs) expect(segmentCollides(g, s, { radius: 0.4, width: 0, length: 0 })).toBe(false);
      const end = segs[segs.length - 1].end;
      // Partial: it stops well short of the goal.
      expect(Math.hypot(end.x - 55.5, end.y - 55.5)).toBeGreaterThan(10);
    },
    60_000,
  );
});

describe("backing up out of a dead end", () => {
  const req = (backing: boolean) => ({
    map: { id: "deadend" },
    unit: {
      turning_radius: 1.5,
      radius: 0.4,
      can_reverse: true,
      max_speed: 3,
      acceleration: 1,
      deceleration: 1,
    },
    start: { x: 3.5, y: 6.5, heading: Math.PI },
    goal: { x: 22.5, y: 15.5 },
    planner: "PLANNER_CURVED",
    options: { allow_backing_up: backing },
  });

  test("without backing up there is no legal curve", async () => {
    const res = await call(srv.client, "Plan", req(false));
    expect(res.status).toBe("PLAN_STATUS_NO_LEGAL_PATH");
    expect(res.segments).toEqual([]);
    expect(res.message).not.toBe("");
  }, 60_000);

  test("with backing up: reverse segments, cusps where the unit stops, and a legal path", async () => {
    const res = await call(srv.client, "Plan", req(true));
    expect(res.status).toBe("PLAN_STATUS_FOUND");
    const segs: Wire[] = res.segments;
    expect(segs.some((s) => s.direction === -1)).toBe(true);
    const cusps = segs.filter((s, i) => i > 0 && s.direction !== segs[i - 1].direction);
    expect(cusps.length).toBeGreaterThan(0);
    for (const c of cusps) expect(c.start_speed).toBe(0);
    for (const s of segs.filter((s) => s.direction === -1)) {
      expect(s.end_speed).toBeLessThanOrEqual(1.5 + 1e-12);
    }
    expect(res.duration).toBeGreaterThan(0);
    const errs = checkPath(res, {
      grid: grids.get("deadend")!,
      shape: { radius: 0.4, width: 0, length: 0 },
      turningRadius: 1.5,
      start: req(true).start,
      goal: req(true).goal,
    });
    expect(errs).toEqual([]);
  }, 60_000);
});

describe("fixed-angle art over gRPC", () => {
  for (const headings of [8, 16]) {
    test(`${headings} headings: lines only, legal headings, position joins, no collision`, async () => {
      const uc: UnitCase = {
        ...UNITS[0],
        label: `disc ${headings} headings`,
        unit: { ...UNITS[0].unit, headings },
        headings,
      };
      const { tally, errs } = await runCases("yard", uc, 15, 20 + headings);
      expect(errs).toEqual([]);
      expect(tally.found).toBeGreaterThan(5);
      const jeep = {
        ...UNITS[1],
        label: `jeep ${headings} headings`,
        unit: { name: "jeep", headings },
        headings,
      };
      const j = await runCases("yard", jeep, 15, 40 + headings);
      expect(j.errs).toEqual([]);
      expect(j.tally.found).toBeGreaterThan(5);
      const soldier: UnitCase = {
        label: "soldier",
        unit: { name: "soldier", headings },
        shape: { radius: 0.3, width: 0, length: 0 },
        turningRadius: 0,
        bounding: 0.3,
        headings,
      };
      const s = await runCases("yard", soldier, 10, 30 + headings, { goalHeading: true });
      expect(s.errs).toEqual([]);
      expect(s.tally.found).toBeGreaterThan(5);
    }, 300_000);
  }

  test("a turn-in-place unit without fixed angles follows the smooth path and stops at corners", async () => {
    const res = await call(srv.client, "Plan", {
      map: { id: "yard" },
      unit: { radius: 0.3, max_speed: 2, acceleration: 2, deceleration: 2 },
      start: { x: 5.5, y: 2.5 },
      goal: { x: 40.5, y: 40.5 },
      planner: "PLANNER_CURVED",
    });
    expect(res.status).toBe("PLAN_STATUS_FOUND");
    const segs: Wire[] = res.segments;
    expect(segs.every((s) => s.curvature === 0)).toBe(true);
    expect(segs.length).toBeGreaterThan(1);
    // Segments are split where the speed phase changes; at every corner (a heading jump) the unit stops.
    let corners = 0;
    for (let i = 1; i < segs.length; i++) {
      const turn = Math.abs(Math.atan2(
        Math.sin(segs[i].start.heading - segs[i - 1].end.heading),
        Math.cos(segs[i].start.heading - segs[i - 1].end.heading),
      ));
      if (turn > 1e-9) {
        corners++;
        expect(segs[i].start_speed).toBe(0);
      }
    }
    expect(corners).toBeGreaterThan(0);
    expect(checkPath(res, {
      grid: grids.get("yard")!,
      shape: { radius: 0.3, width: 0, length: 0 },
      turningRadius: 0,
      start: { x: 5.5, y: 2.5, heading: 0 },
      goal: { x: 40.5, y: 40.5 },
    })).toEqual([]);
  }, 60_000);
});
