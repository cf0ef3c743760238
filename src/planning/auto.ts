/**
 * PLANNER_AUTO for turning units: a small portfolio in one worker hop. The hybrid runs first (fast, usually
 * good); when its answer is not provably good enough — it reverses, has cusps, or costs more than
 * {@link GOOD_ENOUGH} times a cheap lower bound — Directional-24 also runs under the remaining budget (then
 * Directional-48 when budget remains and the best answer still backs up; Directional-48 alone for units
 * turning at {@link WIDE_TURN_RADIUS} or more), and the cheapest legal
 * answer by the one cost model (motion/pathCost.ts) is returned. When that answer still backs up, CURVED's
 * forward fit (grid route and forward curves, milliseconds) is tried last and taken when cheaper: no reverse
 * where a forward path AUTO can find costs less (quality bench, 180 pairs: 91 answers still backed up and paid
 * for it; CURVED forward alone on those pairs median 0.11 ms, max 12.5 ms). `PlanOutcome.planner` names the
 * planner whose answer it is, and the message says what AUTO compared. A hybrid that finds nothing goes through
 * the portfolio too, and gets {@link HYBRID_SHARE} of the budget when the portfolio has a neighbourhood its
 * last resort does not search: AUTO finds a path where Directional-48 alone would.
 *
 * The lower bound: no path costs less than its length times the layer's cheapest tile cost, and no path is
 * shorter than the shortest curve the unit can drive to the goal ignoring obstacles (Dubins forward, Reeds-Shepp
 * for a unit that may reverse; arc-then-line or the straight distance without a goal heading), less the goal's
 * position tolerance. It is tight in the open over cheap ground, where the hybrid's direct curve answers
 * outright, so those queries never pay for a second search.
 *
 * @module
 */
import { dubinsLength } from "../geometry/dubins.ts";
import { reedsSheppLength } from "../geometry/reedsShepp.ts";
import { type PathCost, pathCost } from "../motion/pathCost.ts";
import { PlanBudget } from "./budget.ts";
import type { PlanContext } from "./context.ts";
import { directCurve, planCurved } from "./curved.ts";
import { directionalMode, planDirectional } from "./directional.ts";
import { newHybridTrace, planHybrid } from "./hybrid.ts";
import type { PlanOutcome, PlanTask } from "./task.ts";

/** An answer within this factor of the lower bound, forward and without cusps, is taken without comparing. */
export const GOOD_ENOUGH = 1.05;
/**
 * Against a forward answer, a directional search looks only for answers at least this much cheaper (a fraction
 * of the best so far): the bound prunes its search, and answers within it are not worth a different path.
 * Against one that backs up, any cheaper answer counts.
 */
export const MIN_GAIN = 0.05;
/** Directional neighbourhoods tried after the hybrid, in order (48 only while the best still reverses). */
export const PORTFOLIO_NEIGHBORHOODS: readonly number[] = [24, 48];
/**
 * From this turning radius (tiles) on, the portfolio runs Directional-48 alone: Directional-24's 16 headings
 * turn such units only in long loops, its answers still backed up and Directional-48 ran after it. The
 * quality bench (bench/quality.ts; truck r 4, 20 pairs per map, old and new code alternated twice): median
 * ratio 1.000 either way; p95 arena 1.100 -> 1.001, yard 1.060 both; AUTO median arena 50/82 -> 39/80 ms, yard
 * 180/268 -> 168/212 ms. Not for the tank and the jeep: there Directional-24 first is faster (yard, one run:
 * jeep 102 -> 180 ms with 48 alone).
 */
export const WIDE_TURN_RADIUS = 3;
/**
 * The share of the budget (expansions and milliseconds) the hybrid gets when the portfolio has a directional
 * neighbourhood the hybrid's own last resort does not search: the rest stays for that one. Where the hybrid's
 * Directional-24 fails it spends the whole budget (quality bench, random512 tank pair 6: 179457 of 200000
 * expansions, then Directional-48 needs 57425 to find a path). The hybrid's answers there used at most 33518
 * expansions and 876 ms (of 200000 and 5000).
 */
export const HYBRID_SHARE = 0.6;

/** The directional neighbourhoods AUTO's portfolio tries for a unit, in order. */
export function portfolioNeighborhoods(turningRadius: number): readonly number[] {
  return turningRadius >= WIDE_TURN_RADIUS ? [48] : PORTFOLIO_NEIGHBORHOODS;
}

/**
 * True when the task runs AUTO's portfolio (the service sets PlanTask.portfolio for turning units). Not for
 * fixed-angle art (paths are rewritten after), roads (the hybrid's roads mode), nor a turn penalty (AUTO asks
 * DIRECTIONAL first for it and falls back to the hybrid only when that found nothing).
 */
export function portfolioApplies(task: PlanTask): boolean {
  const u = task.unit;
  return task.portfolio === true && u.turningRadius > 0 && u.headings === 0 && u.turnPenalty === 0 &&
    !task.options.keepToRoads;
}

/**
 * A cheap lower bound on the cost of any path of the task (see the module doc): the shortest curve to the goal
 * ignoring obstacles, less the position tolerance, times the layer's cheapest tile cost.
 */
export function costLowerBound(task: PlanTask, minCost: number): number {
  const { start, goal, unit } = task;
  const r = unit.turningRadius;
  const reverse = unit.canReverse || task.options.allowBackingUp;
  let len = Math.hypot(goal.x - start.x, goal.y - start.y);
  if (goal.heading !== undefined) {
    const g = { x: goal.x, y: goal.y, heading: goal.heading };
    len = Math.max(len, reverse ? reedsSheppLength(start, g, r) : dubinsLength(start, g, r));
  } else if (!reverse) {
    const curve = directCurve(start, goal, r);
    if (curve) len = Math.max(len, curve.reduce((a, s) => a + s.length, 0));
  }
  return Math.max(0, len - goal.tolerance) * minCost;
}

/** Why an answer costing `c` is not provably good enough (for the message), or null when it is. */
function notGoodEnough(c: PathCost, bound: number): string | null {
  if (c.reverseLength > 0) return `it reverses ${c.reverseLength.toFixed(1)} tiles`;
  if (c.cusps > 0) return `it has ${c.cusps} cusps`;
  if (c.total > bound * GOOD_ENOUGH) return `its cost is ${(c.total / bound).toFixed(2)}x a lower bound`;
  return null;
}

/** True when an answer costing `c` neither reverses nor has cusps. */
function drivesForward(c: PathCost): boolean {
  return c.reverseLength === 0 && c.cusps === 0;
}

const found = (o: PlanOutcome) => (o.status === "found" || o.status === "nearest") && o.segments.length > 0;

/** The label of an answer in AUTO's message. */
function label(o: PlanOutcome, neighborhood: number): string {
  if (o.planner === "curved") return "PLANNER_CURVED forward";
  return o.planner === "directional" ? `Directional-${neighborhood}` : "PLANNER_HYBRID";
}

/**
 * CURVED without backing up (4-connected grid route, smoothing, forward curves checked for the footprint)
 * under what is left of the budget, or null when nothing is left. Only a "found" answer is a candidate (a
 * partial route's path ends elsewhere).
 */
function forwardCandidate(
  ctx: PlanContext,
  task: PlanTask,
  budget: PlanBudget,
  spent: number,
): PlanOutcome | null {
  const millis = budget.millisLeft();
  const left = budget.expansionsLeft(spent);
  if (budget.cancelled() || millis <= 0 || left <= 0) return null;
  const sub = new PlanBudget(left, Number.isFinite(millis) ? millis : 0, budget.cancel);
  const forward: PlanTask = {
    ...task,
    planner: "curved",
    portfolio: false,
    options: { ...task.options, allowBackingUp: false, ignoreObstaclesInCurves: false, tighterTurns: false },
  };
  return planCurved(ctx, forward, sub);
}

/**
 * The hybrid's budget in AUTO: {@link HYBRID_SHARE} of the task's when the portfolio runs a neighbourhood the
 * hybrid's last resort (`own`) does not search, so that one still has budget where the hybrid fails; the
 * whole budget otherwise, and in the inline lane (no searches run there).
 */
function hybridBudget(task: PlanTask, budget: PlanBudget, own: number): PlanBudget {
  if (!portfolioApplies(task) || task.fastLaneOnly) return budget;
  if (portfolioNeighborhoods(task.unit.turningRadius).every((n) => n === own)) return budget;
  const millis = budget.millisLeft();
  const expansions = budget.maxExpansions;
  return new PlanBudget(
    Number.isFinite(expansions) ? Math.max(1, Math.floor(expansions * HYBRID_SHARE)) : 0,
    Number.isFinite(millis) ? Math.max(1, millis * HYBRID_SHARE) : 0,
    budget.cancel,
  );
}

/**
 * AUTO's portfolio (see the module doc); falls back to the hybrid alone when it does not apply. Its planners
 * share their grid routes (PlanContext.sharingRoutes): the hybrid's 4-connected route is the capped
 * directional search's corridor and CURVED's route, searched once.
 */
export function planAuto(ctx: PlanContext, task: PlanTask, budget: PlanBudget): PlanOutcome {
  return ctx.sharingRoutes(() => portfolio(ctx, task, budget));
}

/** {@link planAuto}'s body. */
function portfolio(ctx: PlanContext, task: PlanTask, budget: PlanBudget): PlanOutcome {
  const hybridTask: PlanTask = { ...task, planner: "hybrid" };
  const trace = newHybridTrace();
  const own = directionalMode(ctx.layer(task.layerKey), task).neighborhood;
  const hybrid = planHybrid(ctx, hybridTask, hybridBudget(task, budget, own), { trace });
  // The hybrid's last resort is a full directional search in the task's neighbourhood: not run twice.
  const searched = trace.steps.includes("fallback") ? own : 0;
  if (!portfolioApplies(task)) return hybrid;
  // A hybrid that found nothing still goes through the portfolio: its grid route keeps the bounding disc on
  // tile centers (UNREACHABLE where the exact footprint may pass), and its last resort is Directional-24 only,
  // where Directional-48 (more moves per heading) may find a path (quality bench, random512 tank: 4 of 20
  // pairs answered NO_LEGAL_PATH that Directional-48 solves). The fast lane does not run searches.
  if (hybrid.status === "cancelled" || (!found(hybrid) && task.fastLaneOnly)) return hybrid;
  const layer = ctx.layer(task.layerKey);
  // Each answer is priced once (a 1,000-tile path costs ~0.1 ms a pricing; the loop asks several times).
  const priced = new Map<PlanOutcome, PathCost>();
  const costOf = (o: PlanOutcome) => {
    let c = priced.get(o);
    if (c === undefined) priced.set(o, c = pathCost(o.segments, task.unit, layer));
    return c;
  };
  const bound = costLowerBound(task, layer.minCost);
  const why = found(hybrid)
    ? notGoodEnough(costOf(hybrid), bound)
    : hybrid.status === "unreachable"
    ? "it found no grid route"
    : `it answered ${hybrid.status}`;
  if (why === null) return hybrid;
  // The inline lane does not run searches: a hybrid answer that needs comparing goes to the pool, where the
  // hybrid's same steps come first, so the answer does not depend on which lane ran it.
  if (task.fastLaneOnly) {
    return { ...hybrid, status: "budget", segments: [], message: `AUTO compares planners (${why})` };
  }
  let best = hybrid, bestN = 0;
  let bestCost = found(hybrid) ? costOf(hybrid).total : Infinity;
  let expansions = hybrid.expansions;
  const tried: string[] = [`PLANNER_HYBRID ${found(hybrid) ? bestCost.toFixed(2) : hybrid.status} (${why})`];
  const neighborhoods = portfolioNeighborhoods(task.unit.turningRadius);
  for (const n of neighborhoods) {
    const millis = budget.millisLeft();
    const left = budget.expansionsLeft(expansions);
    if (budget.cancelled() || millis <= 0 || left <= 0) break;
    // A second neighbourhood (Directional-48, slower) only while the best answer still backs up.
    if (n !== neighborhoods[0] && found(best) && drivesForward(costOf(best))) break;
    if (n === searched) {
      tried.push(`Directional-${n} (the hybrid's own last resort)`);
      continue;
    }
    const sub = new PlanBudget(left, Number.isFinite(millis) ? millis : 0, budget.cancel);
    // Any cheaper answer replaces one that backs up (no reverse where a forward path costs less).
    const gain = found(best) && drivesForward(costOf(best)) ? MIN_GAIN : 0;
    const cap = Number.isFinite(bestCost) ? bestCost * (1 - gain) : undefined;
    const d = planDirectional(ctx, { ...task, planner: "directional", neighborhood: n }, sub, cap);
    expansions += d.expansions;
    if (d.status === "cancelled") return { ...d, expansions };
    if (!found(d)) {
      tried.push(
        `Directional-${n} ${cap !== undefined && d.status === "no_legal_path" ? "none cheaper" : d.status}`,
      );
      continue;
    }
    const c = costOf(d).total;
    tried.push(`Directional-${n} ${c.toFixed(2)}`);
    if (c < bestCost - 1e-9) {
      best = d, bestN = n, bestCost = c;
    }
  }
  if (!found(best)) {
    const note = `AUTO: no path from ${tried.join(", ")}`;
    return { ...hybrid, expansions, message: [note, hybrid.message].filter((m) => m !== "").join("; ") };
  }
  // No reverse where a forward path is cheaper: only an answer that still backs up pays for CURVED's forward
  // fit (grid route + curves, milliseconds). Run after the portfolio, it displaces no candidate and takes no
  // budget from them, so the cheapest by pathCost can only get cheaper.
  if (costOf(best).reverseLength > 0) {
    const fwd = forwardCandidate(ctx, task, budget, expansions);
    if (fwd !== null) {
      expansions += fwd.expansions;
      if (fwd.status === "cancelled") return { ...fwd, expansions };
      if (fwd.status !== "found" || fwd.segments.length === 0) {
        tried.push(`PLANNER_CURVED forward ${fwd.status}`);
      } else {
        const c = costOf(fwd).total;
        tried.push(`PLANNER_CURVED forward ${c.toFixed(2)}`);
        if (c < bestCost - 1e-9) best = fwd, bestN = 0, bestCost = c;
      }
    }
  }
  const note = `AUTO: ${label(best, bestN)}'s answer, the cheapest of ${tried.join(", ")}`;
  return { ...best, expansions, message: [note, best.message].filter((m) => m !== "").join("; ") };
}
