/**
 * The unit's settings a planner's own search does not serve, applied or reported after it ran (the dispatcher's
 * step between a planner and the speed profile), so no setting is silently ignored:
 *
 * - fixed-angle art (`headings` 8 or 16): GRID's tile lines are already at multiples of 45 degrees, SMOOTH and
 *   CURVED rewrite their own paths; the paths of DIRECTIONAL, HYBRID and HIERARCHICAL are rewritten here with
 *   the same fixedAngle.ts (arcs become polygons tangent to the turning circle), collision-checked;
 * - `turn_penalty`: only the directional search charges it; every other planner's answer says it was priced
 *   but not minimised (PLANNER_AUTO picks DIRECTIONAL for such units, src/service/settings.ts);
 * - reverse and cusp penalties: CURVED's backing up takes the shortest Reeds-Shepp curve by length, so an
 *   answer that reverses says the penalties were not minimised.
 *
 * @module
 */
import type { PlanContext } from "./context.ts";
import { toFixedAngles } from "./fixedAngle.ts";
import type { PlannerName, PlanOutcome, PlanTask } from "./task.ts";

/** Planners whose own code leaves arcs or off-grid headings in the path (rewritten here for fixed-angle art). */
const REWRITTEN_FOR_ART: ReadonlySet<PlannerName> = new Set(["directional", "hybrid", "hierarchical"]);

/** The wire name of a planner, for messages (planning does not import the wire table). */
export function plannerLabel(p: PlannerName): string {
  return `PLANNER_${p.toUpperCase()}`;
}

/**
 * Applies the unit's fixed-angle art to a planner's path and appends notes for settings the planner priced but
 * did not minimise. Mutates `out`; a path that has no collision-free rewrite becomes NO_LEGAL_PATH naming the
 * setting.
 */
export function honourUnitSettings(ctx: PlanContext, task: PlanTask, out: PlanOutcome): void {
  const unit = task.unit;
  const notes: string[] = [];
  if (unit.headings > 0 && out.segments.length > 0 && REWRITTEN_FOR_ART.has(task.planner)) {
    const layer = ctx.layer(task.layerKey);
    const fixed = toFixedAngles(out.segments, unit.headings, {
      layer,
      footprint: unit.footprint,
      check: true,
    });
    if (!fixed) {
      out.status = "no_legal_path";
      out.segments = [];
      out.length = 0;
      out.duration = 0;
      notes.push(
        `unit.headings ${unit.headings}: no collision-free path along the legal headings of the unit's art ` +
          `(the ${plannerLabel(task.planner)} path could not be rewritten)`,
      );
    } else {
      out.segments = fixed;
      out.length = fixed.reduce((a, s) => a + s.length, 0);
      out.duration = 0; // the dispatcher profiles the new lines
      notes.push(
        `unit.headings ${unit.headings}: the path is lines at the unit's legal headings (arcs followed as ` +
          `polygons tangent to the turning circle; frame changes turn in place)`,
      );
    }
  }
  if (unit.turnPenalty > 0 && task.planner !== "directional" && out.segments.length > 0) {
    notes.push(
      `unit.turn_penalty ${unit.turnPenalty}: priced in the cost but not minimised by ` +
        `${plannerLabel(task.planner)} (PLANNER_DIRECTIONAL's search charges it)`,
    );
  }
  if (task.planner === "curved" && out.segments.some((s) => s.direction < 0)) {
    notes.push(
      `unit.reverse_penalty ${unit.reversePenalty} and unit.cusp_penalty ${unit.cuspPenalty}: priced in the ` +
        `cost but not minimised by PLANNER_CURVED's backing up (shortest curves by length)`,
    );
  }
  if (notes.length > 0) out.message = [out.message, ...notes].filter((s) => s !== "").join("; ");
}
