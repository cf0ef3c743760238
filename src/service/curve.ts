/**
 * The Curve RPC's work: one curve between two poses from the geometry core (Dubins, Reeds-Shepp, or the
 * article's arc-then-line), for a decoded request.
 *
 * @module
 */
import { arcThenLine } from "../geometry/arcThenLine.ts";
import { dubinsShortest } from "../geometry/dubins.ts";
import { reedsSheppShortest } from "../geometry/reedsShepp.ts";
import type { CurvePath } from "../geometry/segment.ts";
import type { CurveRequest } from "./requests.ts";

/** The shortest curve the request asks for: arc-then-line (any final heading), Reeds-Shepp or Dubins. */
export function shortestCurve(req: CurveRequest): CurvePath {
  const { start, goal, turningRadius: r } = req;
  if (req.ignoreGoalHeading) return arcThenLine(start, goal.x, goal.y, r);
  return req.allowReverse ? reedsSheppShortest(start, goal, r) : dubinsShortest(start, goal, r);
}
