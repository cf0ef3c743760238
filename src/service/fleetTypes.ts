/**
 * The messages of one Fleet stream as the service sees them: decoded client messages in, updates out (the wire
 * forms are src/server/decode.ts and wire.ts), and a fleet's limits.
 *
 * @module
 */
import type { Pose, Segment } from "../geometry/types.ts";
import type { UnitSpec } from "../units/unit.ts";
import type { ServiceError } from "./errors.ts";
import type { MapVersion } from "./mapStore.ts";
import type { GoalSpec, MapRef, PlannerChoice } from "./requests.ts";

/** A decoded client message of a Fleet stream. */
export type FleetMessage =
  | { kind: "open"; map: MapRef; brakingEnvelopes?: boolean }
  | {
    kind: "unit";
    id: string;
    unit: UnitSpec;
    pose: Pose;
    goal: GoalSpec;
    planner: PlannerChoice;
    time: number;
  }
  | { kind: "remove"; id: string; time: number }
  | { kind: "progress"; id: string; pose: Pose; time: number }
  | { kind: "sync"; time: number }
  /** A message the decoder refused: answered with an error update in its turn. */
  | { kind: "invalid"; id: string; error: ServiceError }
  /** The map was patched (from the store, never from the wire). */
  | { kind: "patch"; to: MapVersion };

/** A unit's new trajectory as the client gets it. */
export interface UnitTrajectoryOut {
  /** Unit id. */
  unitId: string;
  /** Fleet seconds at which the first segment begins. */
  startTime: number;
  /** Timed segments; waits are zero-length segments with a duration. */
  segments: Segment[];
  /** "moving", "waiting" or "unreachable". */
  status: string;
  /** Why, for waiting and unreachable. */
  message: string;
  /** Fleet time at which it stands at its last pose. */
  endTime: number;
}

/** A refused message. */
export interface FleetErrorOut {
  /** The unit it concerned ("" for none). */
  unitId: string;
  /** Status code name. */
  code: string;
  /** Names the field and value. */
  message: string;
}

/** One server message of a Fleet stream. */
export interface FleetUpdateOut {
  /** Trajectories that changed. */
  trajectories: UnitTrajectoryOut[];
  /** True when this update acknowledges a sync. */
  synced: boolean;
  /** The acknowledged sync's time. */
  syncedTime: number;
  /** Refused messages. */
  errors: FleetErrorOut[];
  /** The fleet clock when it was sent. */
  time: number;
  /** Microseconds spent on the messages this update answers. */
  micros: number;
}

/** Limits of a fleet. */
export interface FleetOptions {
  /** Most units at once (more: RESOURCE_EXHAUSTED naming the unit). */
  maxUnits: number;
  /**
   * Late units given detours around the spots where they queue, per round of a batch (fleetDetour.ts; 0: none,
   * absent: the service's default).
   */
  detourUnits?: number;
  /**
   * Budget of a batch's detour pass, ms of the server thread's CPU time (by default sized to the work: fleetDetour.ts
   * defaultBudgetMs).
   */
  detourMs?: number;
  /** Called before a new unit joins; throws to refuse it (the tenant's fleet_units quota, service/quotas.ts). */
  admitUnit?: () => void;
}
