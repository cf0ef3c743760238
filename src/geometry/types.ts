/**
 * The one pose and segment type every planner, the service and the wire format share.
 *
 * Frame: x is the column, y the row, in tiles; heading 0 points to +x, pi/2 to +y.
 *
 * @module
 */

/** A position and heading. */
export interface Pose {
  /** Column coordinate in tiles. */
  x: number;
  /** Row coordinate in tiles. */
  y: number;
  /** Radians; 0 points to +x, pi/2 to +y. */
  heading: number;
}

/**
 * One piece of a path. For u in [0, length], with d = direction and k = curvature:
 * heading(u) = start.heading + d*k*u; (x, y) integrates d*(cos heading, sin heading).
 * A line has k = 0. Arcs carry their center, radius and sweep for convenience.
 */
export interface Segment {
  /** Pose at u = 0. */
  start: Pose;
  /** Pose at u = length (closed form, for checking). */
  end: Pose;
  /** Distance travelled, >= 0. */
  length: number;
  /** Signed curvature (1/radius); 0 for a line. */
  curvature: number;
  /** +1 forward, -1 reverse. */
  direction: 1 | -1;
  /** Speed at the start (tiles/s); 0 when no speed profile. */
  startSpeed?: number;
  /** Speed at the end (tiles/s). */
  endSpeed?: number;
  /** Seconds to drive it; 0 when no speed profile. */
  duration?: number;
  /** True if the segment touches a blocked tile (only for requested approximations). */
  touchesBlocked?: boolean;
  /** True if its radius is below the unit's turning radius (only for requested approximations). */
  tightened?: boolean;
}
