/**
 * The curve solvers in one place: shortest Dubins (forward only) and Reeds-Shepp (with reverse) paths between
 * poses, and the article's arc-then-line path to a point. See the individual modules for the formulations.
 *
 * @module
 */

export { arcThenLine, arcThenLineLength, arcThenLineSide, arcThenLineSideLength } from "./arcThenLine.ts";
export { DUBINS_WORDS, dubinsLength, dubinsLengthCoords, dubinsShortest } from "./dubins.ts";
export { reedsSheppLength, reedsSheppLengthCoords, reedsSheppShortest } from "./reedsShepp.ts";
export type { CurvePath } from "./segment.ts";
