/**
 * The article's hit-check table: for every start heading, end heading and child offset of a directional
 * neighbourhood, the shortest curve between the two tile-center poses (Dubins; for reversing units also the
 * Reeds-Shepp curve when it drives in reverse and is shorter) and the cells its footprint sweeps (from
 * {@link sweptCells}: the cells of the conservative shapes `segmentHitsBlocked` tests where clearance does not
 * certify the way free). Checking a transition in the search
 * is then a scan of those cells' open flags: no trigonometry in the search loop.
 *
 * Layout (flat arrays, CSR): transitions are grouped by start heading, `transitionStart[h]` ..
 * `transitionStart[h+1]`; transition t goes to offset (dx[t], dy[t]) with end heading endHeading[t]; its cells
 * are pairs `cells[2c], cells[2c+1]` for c in `cellStart[t]` .. `cellStart[t+1]`, relative to the origin tile,
 * the destination tile first, the origin tile left out (a node's own tile is open by construction).
 *
 * Tables are pure data; {@link packTables} / {@link unpackTables} turn them (with the heuristic table) into the
 * byte-exact file format of tables/ (see src/tools/tables.ts).
 *
 * @module
 */
import { dubinsShortest } from "../geometry/dubins.ts";
import { reedsSheppShortest } from "../geometry/reedsShepp.ts";
import { sweptCells } from "../geometry/sweep.ts";
import type { Pose, Segment } from "../geometry/types.ts";
import type { Footprint } from "../units/footprint.ts";
import { type DirectionalNeighborhood, directionTable, headingAngle } from "./directionTable.ts";
import type { HeuristicTable } from "./heuristicTable.ts";

/** What a table depends on. */
export interface TableProfile {
  /** The unit's footprint. */
  footprint: Footprint;
  /** Turning radius (> 0). */
  turningRadius: number;
  /** Number of discrete headings (8 or 16). */
  headings: number;
  /** Directional neighbourhood. */
  neighborhood: DirectionalNeighborhood;
  /** The unit can drive in reverse (adds Reeds-Shepp transitions). */
  reverse: boolean;
}

/** Curve variant: the forward Dubins curve, or the Reeds-Shepp curve (with reverse pieces). */
export const VARIANT_DUBINS = 0;
/** See {@link VARIANT_DUBINS}. */
export const VARIANT_REEDS_SHEPP = 1;

/** flags bit: the first piece is driven in reverse. */
export const FIRST_REVERSE = 1;
/** flags bit: the last piece is driven in reverse. */
export const LAST_REVERSE = 2;
/** flags bit: the transition is the Reeds-Shepp variant. */
export const IS_REEDS_SHEPP = 4;

/** A hit-check table (see the module doc for the layout). */
export interface HitCheckTable {
  /** The profile it was built for. */
  profile: TableProfile;
  /** {@link tableKey} of the profile. */
  key: string;
  /** Transitions per start heading, CSR offsets (length headings + 1). */
  transitionStart: Uint32Array;
  /** Child offset x per transition. */
  dx: Int8Array;
  /** Child offset y per transition. */
  dy: Int8Array;
  /** End heading index per transition. */
  endHeading: Uint8Array;
  /** {@link FIRST_REVERSE} | {@link LAST_REVERSE} | {@link IS_REEDS_SHEPP}. */
  flags: Uint8Array;
  /** Number of direction changes inside the curve. */
  cusps: Uint8Array;
  /** Distance driven forward. */
  forwardLength: Float64Array;
  /** Distance driven in reverse. */
  reverseLength: Float64Array;
  /** Total radians turned. */
  turn: Float64Array;
  /** Cells per transition, CSR offsets (length transitions + 1). */
  cellStart: Uint32Array;
  /**
   * Cell offsets (x, y pairs) relative to the origin tile: 8-bit, or 16-bit when a cell lies beyond +-127 (a
   * turning radius above about 46 tiles: the loops of Dubins curves between neighbours reach past 2 radii).
   */
  cells: Int8Array | Int16Array;
  /** Largest |x| or |y| of any cell: how far a transition may reach from its origin tile. */
  maxReach: number;
  /**
   * Search-side forms derived from the cells (src/search/transitionCells.ts), when computed once over shared
   * memory for tables every worker adopts (else each thread derives and caches its own).
   */
  derived?: DerivedCells;
}

/** See {@link HitCheckTable.derived}: row bitmasks (null when the reach is too wide for them) and reaches. */
export interface DerivedCells {
  /** Row entries per transition, CSR offsets (length transitions + 1). */
  rows: { rowStart: Uint32Array; rowDy: Int8Array; rowMask: Int32Array } | null;
  /** Per transition: the largest |dx| or |dy| of its cells. */
  reach: Uint8Array;
}

/** The cache/file key of a profile: every parameter the tables depend on. */
export function tableKey(p: TableProfile): string {
  const fp = p.footprint;
  const shape = fp.width > 0 || fp.length > 0 ? `rect${fp.width}x${fp.length}` : `disc${fp.radius}`;
  return `${shape}-r${p.turningRadius}-h${p.headings}-d${p.neighborhood}-${p.reverse ? "rs" : "dubins"}`;
}

/** The shortest curve of a variant between two poses (segments chained from `start`). */
export function transitionCurve(start: Pose, goal: Pose, radius: number, variant: number): Segment[] {
  return variant === VARIANT_REEDS_SHEPP
    ? reedsSheppShortest(start, goal, radius).segments
    : dubinsShortest(start, goal, radius).segments;
}

/** Forward length, reverse length, radians turned, cusps, first and last direction of a curve. */
export interface CurveMeasure {
  /** Distance forward. */
  forward: number;
  /** Distance in reverse. */
  reverse: number;
  /** Radians turned. */
  turn: number;
  /** Direction changes inside. */
  cusps: number;
  /** Direction of the first piece (1 when empty). */
  first: 1 | -1;
  /** Direction of the last piece (1 when empty). */
  last: 1 | -1;
}

/** Measures a curve's pieces (for costs). */
export function measureCurve(segs: readonly Segment[]): CurveMeasure {
  const m: CurveMeasure = { forward: 0, reverse: 0, turn: 0, cusps: 0, first: 1, last: 1 };
  for (let i = 0; i < segs.length; i++) {
    const s = segs[i];
    if (s.direction === 1) m.forward += s.length;
    else m.reverse += s.length;
    m.turn += Math.abs(s.curvature) * s.length;
    if (i === 0) m.first = s.direction;
    else if (s.direction !== segs[i - 1].direction) m.cusps++;
    m.last = s.direction;
  }
  return m;
}

/** The cells (relative to tile (originX, originY)) a curve's footprint may overlap, deduplicated, in order. */
export function curveCells(
  segs: readonly Segment[],
  footprint: Footprint,
  originX: number,
  originY: number,
): number[] {
  const seen = new Set<number>();
  const out: number[] = [];
  const scratch: number[] = [];
  for (const seg of segs) {
    const n = sweptCells(seg, footprint, scratch, originX, originY);
    for (let i = 0; i < n; i++) {
      const x = scratch[2 * i];
      const y = scratch[2 * i + 1];
      const key = (x + 4096) * 8192 + (y + 4096);
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(x, y);
    }
  }
  return out;
}

/**
 * Builds a profile's hit-check table one start heading at a time, so that the build (up to seconds for a
 * large custom profile) can stop between headings when a request runs out of time and go on later from there.
 * The arrays grow in the same order as a build in one go, so the table is the same either way.
 */
export class HitCheckBuilder {
  /** The profile being built. */
  readonly profile: TableProfile;
  /** Start headings done so far (the build is complete at profile.headings). */
  headingsDone = 0;
  private readonly offsets: Int8Array;
  private readonly transitionStart: Uint32Array;
  private readonly dx: number[] = [];
  private readonly dy: number[] = [];
  private readonly endHeading: number[] = [];
  private readonly flags: number[] = [];
  private readonly cusps: number[] = [];
  private readonly forward: number[] = [];
  private readonly reverse: number[] = [];
  private readonly turn: number[] = [];
  private readonly cellStart: number[] = [0];
  private readonly cells: number[] = [];
  private maxReach = 0;

  /** Starts a build (nothing is computed yet). */
  constructor(profile: TableProfile) {
    this.profile = profile;
    this.offsets = directionTable(profile.neighborhood);
    this.transitionStart = new Uint32Array(profile.headings + 1);
  }

  /** True once every start heading is built. */
  get done(): boolean {
    return this.headingsDone === this.profile.headings;
  }

  /**
   * Builds start headings until all are done or `stop()` (polled before each) says to stop; returns
   * {@link done}. `onProgress(done, total)` is called after each heading.
   */
  step(stop: (() => boolean) | null = null, onProgress?: (done: number, total: number) => void): boolean {
    const H = this.profile.headings;
    while (this.headingsDone < H) {
      if (stop !== null && stop()) return false;
      this.buildHeading(this.headingsDone);
      this.headingsDone++;
      onProgress?.(this.headingsDone, H);
    }
    return true;
  }

  /** The finished table (throws if the build is not {@link done}). */
  table(): HitCheckTable {
    if (!this.done) throw new Error(`hit-check table ${tableKey(this.profile)} is not built yet`);
    const H = this.profile.headings;
    this.transitionStart[H] = this.dx.length;
    return {
      profile: this.profile,
      key: tableKey(this.profile),
      transitionStart: this.transitionStart,
      dx: Int8Array.from(this.dx),
      dy: Int8Array.from(this.dy),
      endHeading: Uint8Array.from(this.endHeading),
      flags: Uint8Array.from(this.flags),
      cusps: Uint8Array.from(this.cusps),
      forwardLength: Float64Array.from(this.forward),
      reverseLength: Float64Array.from(this.reverse),
      turn: Float64Array.from(this.turn),
      cellStart: Uint32Array.from(this.cellStart),
      cells: this.maxReach > 127 ? Int16Array.from(this.cells) : Int8Array.from(this.cells),
      maxReach: this.maxReach,
    };
  }

  private add(ox: number, oy: number, h1: number, segs: Segment[], rs: boolean): void {
    const m = measureCurve(segs);
    const c = curveCells(segs, this.profile.footprint, 0, 0);
    this.dx.push(ox);
    this.dy.push(oy);
    this.endHeading.push(h1);
    this.flags.push(
      (m.first < 0 ? FIRST_REVERSE : 0) | (m.last < 0 ? LAST_REVERSE : 0) | (rs ? IS_REEDS_SHEPP : 0),
    );
    this.cusps.push(m.cusps);
    this.forward.push(m.forward);
    this.reverse.push(m.reverse);
    this.turn.push(m.turn);
    // Destination first (the cheapest rejection), origin left out.
    this.cells.push(ox, oy);
    for (let i = 0; i < c.length; i += 2) {
      const x = c[i], y = c[i + 1];
      if ((x === 0 && y === 0) || (x === ox && y === oy)) continue;
      this.cells.push(x, y);
      this.maxReach = Math.max(this.maxReach, Math.abs(x), Math.abs(y));
    }
    this.maxReach = Math.max(this.maxReach, Math.abs(ox), Math.abs(oy));
    this.cellStart.push(this.cells.length / 2);
  }

  private buildHeading(h0: number): void {
    const { headings: H, turningRadius: r } = this.profile;
    const offsets = this.offsets;
    const nOff = offsets.length / 2;
    this.transitionStart[h0] = this.dx.length;
    const start: Pose = { x: 0.5, y: 0.5, heading: headingAngle(h0, H) };
    for (let o = 0; o < nOff; o++) {
      const ox = offsets[2 * o], oy = offsets[2 * o + 1];
      for (let h1 = 0; h1 < H; h1++) {
        const goal: Pose = { x: ox + 0.5, y: oy + 0.5, heading: headingAngle(h1, H) };
        const dubins = dubinsShortest(start, goal, r);
        this.add(ox, oy, h1, dubins.segments, false);
        if (this.profile.reverse) {
          const rs = reedsSheppShortest(start, goal, r);
          if (rs.length < dubins.length - 1e-9 && rs.segments.some((s) => s.direction < 0)) {
            this.add(ox, oy, h1, rs.segments, true);
          }
        }
      }
    }
  }
}

/**
 * Builds the hit-check table of a profile. `onProgress(done, total)` is called once per start heading.
 * Deterministic: the same profile always gives the same arrays.
 */
export function buildHitCheckTable(
  profile: TableProfile,
  onProgress?: (done: number, total: number) => void,
): HitCheckTable {
  const builder = new HitCheckBuilder(profile);
  builder.step(null, onProgress);
  return builder.table();
}

const MAGIC = "ARCPTBL1";

type Packable =
  | Int8Array
  | Int16Array
  | Uint8Array
  | Uint16Array
  | Uint32Array
  | Float64Array;

/**
 * Serializes a hit-check table and its heuristic table into one byte buffer: the magic "ARCPTBL1", a u32 header
 * length, a JSON header (key, profile, array lengths), then each array's raw little-endian bytes, 8-byte aligned.
 */
export function packTables(hit: HitCheckTable, heur: HeuristicTable): Uint8Array {
  const arrays: Packable[] = [
    hit.transitionStart,
    hit.dx,
    hit.dy,
    hit.endHeading,
    hit.flags,
    hit.cusps,
    hit.forwardLength,
    hit.reverseLength,
    hit.turn,
    hit.cellStart,
    hit.cells,
    heur.values,
  ];
  const header = JSON.stringify({
    key: hit.key,
    profile: hit.profile,
    maxReach: hit.maxReach,
    // Only wide tables say so, so the files of 8-bit tables stay byte-identical.
    ...(hit.cells instanceof Int16Array ? { cellBits: 16 } : {}),
    heuristic: {
      radius: heur.radius,
      headings: heur.headings,
      reverse: heur.reverse,
      turningRadius: heur.turningRadius,
    },
    lengths: arrays.map((a) => a.length),
  });
  const headerBytes = new TextEncoder().encode(header);
  const align = (n: number) => (n + 7) & ~7;
  let size = align(8 + 4 + headerBytes.length);
  for (const a of arrays) size += align(a.byteLength);
  const out = new Uint8Array(size);
  out.set(new TextEncoder().encode(MAGIC), 0);
  new DataView(out.buffer).setUint32(8, headerBytes.length, true);
  out.set(headerBytes, 12);
  let at = align(12 + headerBytes.length);
  for (const a of arrays) {
    out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), at);
    at += align(a.byteLength);
  }
  return out;
}

/**
 * Reads back what {@link packTables} wrote (throws on a malformed buffer). With `shared`, the arrays are views
 * of one SharedArrayBuffer, so the tables can be posted to workers without a copy (one copy for all of them).
 */
export function unpackTables(
  bytes: Uint8Array,
  shared = false,
): { hit: HitCheckTable; heur: HeuristicTable } {
  if (new TextDecoder().decode(bytes.subarray(0, 8)) !== MAGIC) throw new Error("not an arcpath table file");
  let buf: ArrayBufferLike;
  if (shared) {
    buf = new SharedArrayBuffer(bytes.byteLength);
    new Uint8Array(buf).set(bytes);
  } else {
    buf = bytes.slice().buffer; // aligned copy
  }
  const headerLength = new DataView(buf).getUint32(8, true);
  const header = JSON.parse(new TextDecoder().decode(new Uint8Array(buf, 12, headerLength)));
  const align = (n: number) => (n + 7) & ~7;
  let at = align(12 + headerLength);
  const lengths: number[] = header.lengths;
  const ctors = [
    Uint32Array,
    Int8Array,
    Int8Array,
    Uint8Array,
    Uint8Array,
    Uint8Array,
    Float64Array,
    Float64Array,
    Float64Array,
    Uint32Array,
    header.cellBits === 16 ? Int16Array : Int8Array,
    Uint16Array,
  ] as const;
  const arrays = ctors.map((C, i) => {
    // Either buffer kind; the constructors' union only types the ArrayBuffer overload.
    const a = new C(buf as ArrayBuffer, at, lengths[i]);
    at += align(a.byteLength);
    return a;
  });
  const hit: HitCheckTable = {
    profile: header.profile,
    key: header.key,
    transitionStart: arrays[0] as Uint32Array,
    dx: arrays[1] as Int8Array,
    dy: arrays[2] as Int8Array,
    endHeading: arrays[3] as Uint8Array,
    flags: arrays[4] as Uint8Array,
    cusps: arrays[5] as Uint8Array,
    forwardLength: arrays[6] as Float64Array,
    reverseLength: arrays[7] as Float64Array,
    turn: arrays[8] as Float64Array,
    cellStart: arrays[9] as Uint32Array,
    cells: arrays[10] as Int8Array | Int16Array,
    maxReach: header.maxReach,
  };
  const h = header.heuristic;
  const heur: HeuristicTable = {
    radius: h.radius,
    headings: h.headings,
    reverse: h.reverse,
    turningRadius: h.turningRadius,
    values: arrays[11] as Uint16Array,
  };
  return { hit, heur };
}
