/**
 * The built-in unit profiles. Their clearance classes get region tables at map load.
 *
 * @module
 */
import { applyOverrides, type UnitOverrides, type UnitSpec } from "./unit.ts";

/** The profile of a request that names none: a point that turns in place, no speed limits. */
export const AGENT: UnitSpec = {
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

function profile(name: string, over: UnitOverrides): UnitSpec {
  return applyOverrides({ ...AGENT, name }, over);
}

/** The built-in profiles, by name. Their clearance classes get region tables at map load. */
export const BUILTIN_PROFILES: Readonly<Record<string, UnitSpec>> = {
  agent: AGENT,
  soldier: profile("soldier", {
    footprint: { radius: 0.3, width: 0, length: 0 },
    maxSpeed: 2,
    acceleration: 4,
    deceleration: 4,
    lateralAcceleration: 3,
    fluidTurning: true,
  }),
  jeep: profile("jeep", {
    footprint: { radius: 0, width: 0.8, length: 1.4 },
    turningRadius: 2,
    canReverse: true,
    maxSpeed: 8,
    acceleration: 4,
    deceleration: 6,
    lateralAcceleration: 5,
  }),
  tank: profile("tank", {
    footprint: { radius: 0.9, width: 0, length: 0 },
    turningRadius: 1.5,
    canReverse: true,
    maxSpeed: 4,
    acceleration: 1.5,
    deceleration: 3,
    lateralAcceleration: 3,
  }),
  truck: profile("truck", {
    footprint: { radius: 0, width: 1, length: 2.4 },
    turningRadius: 4,
    canReverse: true,
    reversePenalty: 3,
    maxSpeed: 6,
    acceleration: 2,
    deceleration: 4,
    lateralAcceleration: 3,
  }),
  boat: profile("boat", {
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
