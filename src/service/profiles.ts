/**
 * Unit profiles: the built-in ones and the merge of a request's profile over its named base.
 *
 * @module
 */
import type { Footprint } from "../geometry/types.ts";
import { invalid } from "./errors.ts";

/** A terrain override as it arrives on the wire. */
export interface TerrainCostInput {
  /** Terrain code 0..255. */
  code: number;
  /** Cost multiplier (>= 1). */
  cost: number;
  /** No entry at all. */
  impassable: boolean;
  /** Road terrain. */
  road: boolean;
}

/** A fully resolved unit: every field has a value. */
export interface UnitSpec {
  /** The built-in profile it started from. */
  name: string;
  /** Footprint (circle when width = length = 0). */
  footprint: Footprint;
  /** Radius of the smallest circle around the footprint (used for grid clearance). */
  boundingRadius: number;
  /** Minimum turning radius; 0 turns in place. */
  turningRadius: number;
  /** May drive in reverse. */
  canReverse: boolean;
  /** Cost multiplier for reverse distance. */
  reversePenalty: number;
  /** Extra cost per radian turned. */
  turnPenalty: number;
  /** Extra cost per cusp. */
  cuspPenalty: number;
  /** Tiles per second (0 = no speed profile). */
  maxSpeed: number;
  /** Tiles per second squared. */
  acceleration: number;
  /** Tiles per second squared. */
  deceleration: number;
  /** Tiles per second squared. */
  lateralAcceleration: number;
  /** 0, 8 or 16. */
  headings: number;
  /** Tighter turns at low speed. */
  fluidTurning: boolean;
  /** Terrain overrides. */
  terrain: TerrainCostInput[];
}

const AGENT: UnitSpec = {
  name: "agent",
  footprint: { radius: 0, width: 0, length: 0 },
  boundingRadius: 0,
  turningRadius: 0,
  canReverse: false,
  reversePenalty: 2,
  turnPenalty: 0,
  cuspPenalty: 2,
  maxSpeed: 0,
  acceleration: 0,
  deceleration: 0,
  lateralAcceleration: 0,
  headings: 0,
  fluidTurning: false,
  terrain: [],
};

function profile(over: Partial<UnitSpec>): UnitSpec {
  const p = { ...AGENT, ...over };
  p.boundingRadius = boundingRadius(p.footprint);
  return p;
}

/** The built-in profiles, by name. Their clearance classes get region tables at map load. */
export const BUILTIN_PROFILES: Readonly<Record<string, UnitSpec>> = {
  agent: AGENT,
  soldier: profile({
    name: "soldier",
    footprint: { radius: 0.3, width: 0, length: 0 },
    maxSpeed: 2,
    acceleration: 4,
    deceleration: 4,
    lateralAcceleration: 3,
    fluidTurning: true,
  }),
  jeep: profile({
    name: "jeep",
    footprint: { radius: 0, width: 0.8, length: 1.4 },
    turningRadius: 2,
    canReverse: true,
    maxSpeed: 8,
    acceleration: 4,
    deceleration: 6,
    lateralAcceleration: 5,
  }),
  tank: profile({
    name: "tank",
    footprint: { radius: 0.9, width: 0, length: 0 },
    turningRadius: 1.5,
    canReverse: true,
    maxSpeed: 4,
    acceleration: 1.5,
    deceleration: 3,
    lateralAcceleration: 3,
  }),
  truck: profile({
    name: "truck",
    footprint: { radius: 0, width: 1, length: 2.4 },
    turningRadius: 4,
    canReverse: true,
    reversePenalty: 3,
    maxSpeed: 6,
    acceleration: 2,
    deceleration: 4,
    lateralAcceleration: 3,
  }),
  boat: profile({
    name: "boat",
    footprint: { radius: 0.8, width: 0, length: 0 },
    turningRadius: 3,
    maxSpeed: 5,
    acceleration: 1,
    deceleration: 1,
    lateralAcceleration: 2,
    // A boat moves on water only.
    terrain: [
      { code: "W".charCodeAt(0), cost: 1, impassable: false, road: false },
      { code: ".".charCodeAt(0), cost: 1, impassable: true, road: false },
      { code: "G".charCodeAt(0), cost: 1, impassable: true, road: false },
      { code: "S".charCodeAt(0), cost: 1, impassable: true, road: false },
    ],
  }),
};

/** The radius of the circle centered on the pose that contains the footprint. */
export function boundingRadius(f: Footprint): number {
  if (f.width > 0 || f.length > 0) return Math.hypot(f.width / 2, f.length / 2);
  return f.radius;
}

/** A unit profile as it arrives on the wire (proto3 defaults: 0, false, "", []). */
export interface UnitProfileInput {
  name?: string;
  radius?: number;
  width?: number;
  length?: number;
  turning_radius?: number;
  can_reverse?: boolean;
  reverse_penalty?: number;
  turn_penalty?: number;
  max_speed?: number;
  acceleration?: number;
  deceleration?: number;
  lateral_acceleration?: number;
  headings?: number;
  terrain?: TerrainCostInput[];
  fluid_turning?: boolean;
  cusp_penalty?: number;
}

function checkNumber(field: string, v: number | undefined, min: number, max: number): number {
  const x = v ?? 0;
  if (!Number.isFinite(x)) throw invalid(field, x, "must be a finite number");
  // 0 is proto3's "unset": the caller takes the base profile's value.
  if (x !== 0 && (x < min || x > max)) throw invalid(field, x, `must be in [${min}, ${max}]`);
  return x;
}

/**
 * Resolves a wire profile: unset (zero) fields come from the named built-in profile. `field` prefixes error
 * messages (e.g. "unit").
 */
export function resolveUnit(input: UnitProfileInput | null | undefined, field = "unit"): UnitSpec {
  const u = input ?? {};
  const name = u.name ?? "";
  const base = name === "" ? AGENT : BUILTIN_PROFILES[name];
  if (!base) {
    throw invalid(
      `${field}.name`,
      name,
      `unknown profile (known: ${Object.keys(BUILTIN_PROFILES).join(", ")})`,
    );
  }
  const pick = (key: keyof UnitProfileInput, fallback: number, min: number, max: number) => {
    const v = checkNumber(`${field}.${key}`, u[key] as number | undefined, min, max);
    return v === 0 ? fallback : v;
  };
  const radius = pick("radius", base.footprint.radius, 0, 16);
  const width = pick("width", base.footprint.width, 0, 32);
  const length = pick("length", base.footprint.length, 0, 32);
  if ((width > 0) !== (length > 0)) {
    throw invalid(
      `${field}.width`,
      width,
      `width and length must both be set for a rectangle (length ${length})`,
    );
  }
  // An explicit radius on the request means a circle even if the base profile is a rectangle.
  const explicitCircle = (u.radius ?? 0) > 0 && !((u.width ?? 0) > 0);
  const footprint = explicitCircle ? { radius, width: 0, length: 0 } : { radius, width, length };
  const headings = u.headings ?? 0;
  if (![0, 8, 16].includes(headings)) throw invalid(`${field}.headings`, headings, "must be 0, 8 or 16");
  const terrain = (u.terrain ?? []).map((t, i) => {
    if (!Number.isInteger(t.code) || t.code < 0 || t.code > 255) {
      throw invalid(`${field}.terrain[${i}].code`, t.code, "must be an integer in [0, 255]");
    }
    if (!t.impassable && (!Number.isFinite(t.cost) || t.cost < 1 || t.cost > 1000)) {
      throw invalid(`${field}.terrain[${i}].cost`, t.cost, "must be in [1, 1000] unless impassable");
    }
    return { code: t.code, cost: t.cost, impassable: !!t.impassable, road: !!t.road };
  });
  const spec: UnitSpec = {
    name: base.name,
    footprint,
    boundingRadius: boundingRadius(footprint),
    turningRadius: pick("turning_radius", base.turningRadius, 0, 64),
    canReverse: base.canReverse || !!u.can_reverse,
    reversePenalty: pick("reverse_penalty", base.reversePenalty, 1, 100),
    turnPenalty: pick("turn_penalty", base.turnPenalty, 0, 100),
    cuspPenalty: pick("cusp_penalty", base.cuspPenalty, 0, 1000),
    maxSpeed: pick("max_speed", base.maxSpeed, 0, 1e4),
    acceleration: pick("acceleration", base.acceleration, 0, 1e4),
    deceleration: pick("deceleration", base.deceleration, 0, 1e4),
    lateralAcceleration: pick("lateral_acceleration", base.lateralAcceleration, 0, 1e4),
    headings: headings === 0 ? base.headings : headings,
    fluidTurning: base.fluidTurning || !!u.fluid_turning,
    terrain: terrain.length > 0 ? terrain : base.terrain,
  };
  if (spec.maxSpeed > 0 && (spec.acceleration <= 0 || spec.deceleration <= 0)) {
    throw invalid(
      `${field}.acceleration`,
      spec.acceleration,
      "must be > 0 (with deceleration) when max_speed is set",
    );
  }
  return spec;
}
