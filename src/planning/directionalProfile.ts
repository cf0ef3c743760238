/**
 * The directional table profile of a unit (footprint, turning radius, headings, neighbourhood, reverse) and the
 * deterministic build of a profile's hit-check and heuristic tables (the service's table store and the
 * `tables` tool use it; planning itself gets tables from its context's source).
 *
 * @module
 */
import { type DirectionalNeighborhood, headingCount } from "../search/directionTable.ts";
import { buildHeuristicTable, type HeuristicTable } from "../search/heuristicTable.ts";
import {
  buildHitCheckTable,
  type HitCheckTable,
  packTables,
  type TableProfile,
} from "../search/hitCheckTable.ts";
import type { UnitSpec } from "../units/unit.ts";

/** Turning radius used for units that turn in place (radius 0): a small circle keeps the curves defined. */
export const POINT_TURN_RADIUS = 0.5;

/** The table profile of a unit for a neighbourhood. */
export function tableProfileOf(
  unit: Pick<UnitSpec, "footprint" | "turningRadius" | "headings" | "canReverse">,
  neighborhood: DirectionalNeighborhood,
  reverse = unit.canReverse,
): TableProfile {
  return {
    footprint: { ...unit.footprint },
    turningRadius: unit.turningRadius > 0 ? unit.turningRadius : POINT_TURN_RADIUS,
    headings: headingCount(neighborhood, unit.headings),
    neighborhood,
    reverse,
  };
}

/** Builds both tables of a profile (deterministic). */
export function buildTables(
  profile: TableProfile,
  onProgress?: (done: number, total: number) => void,
): { hit: HitCheckTable; heur: HeuristicTable } {
  const hit = buildHitCheckTable(profile, onProgress);
  const heur = buildHeuristicTable(profile.turningRadius, profile.headings, profile.reverse);
  return { hit, heur };
}

/** The packed (uncompressed) bytes of a profile's tables. */
export function tableBytes(
  profile: TableProfile,
  onProgress?: (done: number, total: number) => void,
): Uint8Array {
  const { hit, heur } = buildTables(profile, onProgress);
  return packTables(hit, heur);
}
