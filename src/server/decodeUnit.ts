/**
 * Wire decoding of unit profiles and terrain overrides: proto3 presence (an `optional` field sent as 0 or false
 * is a value; a plain field's 0 is unset) over the named built-in profile, every field range-checked with an
 * error naming it.
 *
 * @module
 */
import type { TerrainEntry } from "../maps/terrain.ts";
import { AGENT, BUILTIN_PROFILES } from "../units/profiles.ts";
import { applyOverrides, type UnitOverrides, type UnitSpec } from "../units/unit.ts";
import { invalid } from "../service/errors.ts";

/** A TerrainCost on the wire. */
export interface WireTerrainCost {
  code: number;
  cost: number;
  impassable: boolean;
  road: boolean;
}

/**
 * A unit profile as it arrives on the wire (proto3 defaults: 0, false, "", []). The fields declared `optional` in
 * the proto (turning_radius, can_reverse, the penalties, max_speed, headings, fluid_turning) are undefined when
 * the client did not set them, and hold the value, even 0 or false, when it did.
 */
export interface WireUnitProfile {
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
  terrain?: WireTerrainCost[];
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

/** An explicit-presence number: undefined when unset (the base's value), else range-checked, 0 included. */
function presentNumber(
  field: string,
  v: number | null | undefined,
  min: number,
  max: number,
): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (!Number.isFinite(v)) throw invalid(field, v, "must be a finite number");
  if (v < min || v > max) throw invalid(field, v, `must be in [${min}, ${max}]`);
  return v;
}

/** Checks terrain overrides (`field` names the list, e.g. "unit.terrain"). */
export function decodeTerrain(list: WireTerrainCost[] | undefined, field: string): TerrainEntry[] {
  return (list ?? []).map((t, i) => {
    if (!Number.isInteger(t.code) || t.code < 0 || t.code > 255) {
      throw invalid(`${field}[${i}].code`, t.code, "must be an integer in [0, 255]");
    }
    if (!t.impassable && (!Number.isFinite(t.cost) || t.cost < 1 || t.cost > 1000)) {
      throw invalid(`${field}[${i}].cost`, t.cost, "must be in [1, 1000] unless impassable");
    }
    return { code: t.code, cost: t.cost, impassable: !!t.impassable, road: !!t.road };
  });
}

/**
 * Decodes a wire profile: unset fields come from the named built-in profile (zero counts as unset for the
 * fields without explicit presence; an explicit 0 or false overrides for those with it). `field` prefixes
 * error messages (e.g. "unit").
 */
export function decodeUnit(input: WireUnitProfile | null | undefined, field = "unit"): UnitSpec {
  // No unit on the request (the common small query): the default profile, decoded once. Specs are never
  // mutated after decoding (the built-in profiles are shared the same way).
  if (input === null || input === undefined) return defaultUnit ??= decodeProfile({}, field);
  return decodeProfile(input, field);
}

/** The decoded unit of a request that sets none (built on first use). */
let defaultUnit: UnitSpec | undefined;

function decodeProfile(u: WireUnitProfile, field: string): UnitSpec {
  const name = u.name ?? "";
  const base = name === "" ? AGENT : BUILTIN_PROFILES[name];
  if (!base) {
    throw invalid(
      `${field}.name`,
      name,
      `unknown profile (known: ${Object.keys(BUILTIN_PROFILES).join(", ")})`,
    );
  }
  const set = (key: keyof WireUnitProfile, min: number, max: number) => {
    const v = checkNumber(`${field}.${key}`, u[key] as number | undefined, min, max);
    return v === 0 ? undefined : v;
  };
  const radius = set("radius", 0, 16) ?? base.footprint.radius;
  const width = set("width", 0, 32) ?? base.footprint.width;
  const length = set("length", 0, 32) ?? base.footprint.length;
  if ((width > 0) !== (length > 0)) {
    throw invalid(
      `${field}.width`,
      width,
      `width and length must both be set for a rectangle (length ${length})`,
    );
  }
  // An explicit radius on the request means a circle even if the base profile is a rectangle.
  const explicitCircle = (u.radius ?? 0) > 0 && !((u.width ?? 0) > 0);
  const headings = u.headings ?? undefined;
  if (headings !== undefined && ![0, 8, 16].includes(headings)) {
    throw invalid(`${field}.headings`, headings, "must be 0, 8 or 16");
  }
  const has = (key: keyof WireUnitProfile, min: number, max: number) =>
    presentNumber(`${field}.${key}`, u[key] as number | null | undefined, min, max);
  const flag = (v: boolean | null | undefined) => (v === undefined || v === null ? undefined : !!v);
  const terrain = decodeTerrain(u.terrain, `${field}.terrain`);
  const over: UnitOverrides = {
    footprint: explicitCircle ? { radius, width: 0, length: 0 } : { radius, width, length },
    turningRadius: has("turning_radius", 0, 64),
    canReverse: flag(u.can_reverse),
    reversePenalty: has("reverse_penalty", 1, 100),
    turnPenalty: has("turn_penalty", 0, 100),
    cuspPenalty: has("cusp_penalty", 0, 1000),
    maxSpeed: has("max_speed", 0, 1e4),
    acceleration: set("acceleration", 0, 1e4),
    deceleration: set("deceleration", 0, 1e4),
    lateralAcceleration: set("lateral_acceleration", 0, 1e4),
    headings,
    fluidTurning: flag(u.fluid_turning),
    terrain: terrain.length > 0 ? terrain : undefined,
  };
  const spec = applyOverrides(base, over);
  if (spec.maxSpeed > 0 && (spec.acceleration <= 0 || spec.deceleration <= 0)) {
    throw invalid(
      `${field}.acceleration`,
      spec.acceleration,
      "must be > 0 (with deceleration) when max_speed is set",
    );
  }
  return spec;
}
