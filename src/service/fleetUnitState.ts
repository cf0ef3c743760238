/**
 * What the fleet's scheduler (fleetScheduler.ts) keeps for each unit: its committed trajectory, the path it
 * still has to drive, a refuge split, the ground it drove, a braking from a halt, its status and message, and
 * what stopped its last scheduling. Types only.
 *
 * @module
 */
import type { Segment } from "../geometry/types.ts";
import type { Trajectory } from "../motion/trajectory.ts";
import type { UnitSpec } from "../units/unit.ts";

/** What a fleet unit is doing. */
export type FleetUnitStatus = "moving" | "waiting" | "unreachable";

/** One unit of a fleet as the scheduler keeps it. */
export interface FleetUnitState {
  /** Client id. */
  id: string;
  /** Order of addition (lower = scheduled first when several wait). */
  order: number;
  /** The resolved unit. */
  unit: UnitSpec;
  /** The committed trajectory. */
  traj: Trajectory;
  /** The geometric path still to drive from where the unit stands in `traj` before it starts (no waits). */
  path: Segment[];
  /**
   * A refuge to step aside to (the article's "yield"): `path` is split after `legOne` segments, where the unit
   * may wait at the refuge before going on; if no wait there lets it go on, it parks at the refuge.
   */
  legOne?: number;
  /** The ground it last drove (up to BACK_REACH tiles, ending where it stands), to back up over. */
  travelled?: Segment[];
  /**
   * The braking of its last halt (a unit moving when halted stops within its deceleration): while `traj` is
   * this, it is rescheduled from where and when the braking ends, the braking kept in front.
   */
  brake?: Trajectory;
  /** Set when a halt had to stop it at once, harder than it can brake (said in its next message). */
  hardStop?: string;
  /** What it is doing. */
  status: FleetUnitStatus;
  /** Why (for waiting and unreachable). */
  message: string;
  /** The last failed scheduling: what stopped it, to skip retries that cannot succeed (see retryWaiting). */
  failed?: FailedAt;
}

/** What a failed scheduling saw: its blocker (a unit standing for good) and the scheduler's change counters. */
export interface FailedAt {
  /** The unit standing for good in its way, and that unit's trajectory then (null: it ran out of delays). */
  blocker: { id: string; traj: Trajectory } | null;
  /** Changes that may free space anywhere: removals, halts, bumps. */
  freed: number;
  /** The same plus units setting out from where they stood. */
  moved: number;
  /** The fleet time and the path it was scheduled for. */
  time: number;
  path: Segment[];
}
