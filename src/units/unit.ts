/**
 * The unit model: what a unit is (footprint, turning, costs, speed limits) once every setting has a value,
 * and how a request's overrides apply over a base profile.
 *
 * @module
 */
import type { TerrainEntry } from "../maps/terrain.ts";
import { boundingRadius, type Footprint } from "./footprint.ts";

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
  terrain: TerrainEntry[];
}

/** Settings a request gives over a base profile; an absent field keeps the base's value. */
export type UnitOverrides = Partial<Omit<UnitSpec, "name" | "boundingRadius">>;

/** The unit `base` with `over` applied (absent fields keep the base's values; the bounding radius follows). */
export function applyOverrides(base: UnitSpec, over: UnitOverrides): UnitSpec {
  const unit: UnitSpec = { ...base };
  for (const [k, v] of Object.entries(over)) {
    if (v !== undefined) (unit as unknown as Record<string, unknown>)[k] = v;
  }
  unit.boundingRadius = boundingRadius(unit.footprint);
  return unit;
}
