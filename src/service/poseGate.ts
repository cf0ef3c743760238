/**
 * The gate of a plan's end poses: the unit's actual footprint at the actual pose and heading, tested exactly
 * against the map (the legality rule of src/geometry/sweep.ts), and the nearest legal pose an error suggests.
 *
 * @module
 */
import { reachLabels } from "../geometry/footprintReach.ts";
import { ByteLru } from "../search/byteLru.ts";
import { footprintHitsBlocked } from "../geometry/sweep.ts";
import type { PassLayer } from "../maps/grid.ts";
import { type Footprint, isRectangle } from "../units/footprint.ts";
import { invalid, type ServiceError } from "./errors.ts";

/**
 * Headings tried when a goal names none: every 5 degrees (the axes and diagonals among them). A rectangle that
 * fits only within a narrower range of headings is refused; rare, and the client can name the heading.
 */
export const ANY_HEADING_SAMPLES = 72;

/** Tiles searched around a refused pose for a legal one (Euclidean radius, tile centers). */
export const SUGGEST_RADIUS = 12;

/** Headings a suggestion tries besides the requested one: every 22.5 degrees. */
const SUGGEST_HEADINGS = 16;

/**
 * A heading at which the footprint fits at (x, y): `heading` itself when given (null if it does not fit); with
 * none, 0 for a disc that fits, else the first of {@link ANY_HEADING_SAMPLES} headings that fits, else null.
 */
export function fittingHeading(
  layer: PassLayer,
  x: number,
  y: number,
  heading: number | undefined,
  footprint: Footprint,
): number | null {
  if (heading !== undefined) return footprintHitsBlocked(layer, x, y, heading, footprint) ? null : heading;
  const samples = isRectangle(footprint) ? ANY_HEADING_SAMPLES : 1;
  for (let i = 0; i < samples; i++) {
    const h = (2 * Math.PI * i) / samples;
    if (!footprintHitsBlocked(layer, x, y, h, footprint)) return h;
  }
  return null;
}

/**
 * The legal pose nearest (x, y) among tile centers, border midpoints and corners within {@link SUGGEST_RADIUS}
 * (ties to the upper-left): the requested heading when it
 * fits there, else the fitting heading of 16 nearest to it (any fitting heading when none was requested).
 * Null when none is that near.
 */
export function nearestLegalPose(
  layer: PassLayer,
  x: number,
  y: number,
  heading: number | undefined,
  footprint: Footprint,
): { x: number; y: number; heading: number } | null {
  const R = SUGGEST_RADIUS;
  const cx = Math.floor(x), cy = Math.floor(y);
  // Tile centers and the midpoints of tile borders and corners: a 2-wide corridor's centre line is a border.
  const tiles: { x: number; y: number; d: number }[] = [];
  for (let j = 2 * Math.max(0, cy - R) + 1; j <= 2 * Math.min(layer.height - 1, cy + R) + 1; j++) {
    for (let i = 2 * Math.max(0, cx - R) + 1; i <= 2 * Math.min(layer.width - 1, cx + R) + 1; i++) {
      const px = i / 2, py = j / 2;
      if (layer.tileCost[Math.floor(py) * layer.width + Math.floor(px)] === 0) continue;
      const d = Math.hypot(px - x, py - y);
      if (d <= R) tiles.push({ x: px, y: py, d });
    }
  }
  tiles.sort((a, b) => a.d - b.d || a.y - b.y || a.x - b.x);
  const want = heading ?? 0;
  // Candidate headings, nearest the wanted one first.
  const headings = [want];
  for (let i = 0; i < SUGGEST_HEADINGS; i++) headings.push((2 * Math.PI * i) / SUGGEST_HEADINGS);
  const gap = (h: number) => Math.abs(Math.atan2(Math.sin(h - want), Math.cos(h - want)));
  headings.sort((a, b) => gap(a) - gap(b));
  const tries = isRectangle(footprint) ? headings : [want];
  for (const t of tiles) {
    for (const h of tries) {
      if (!footprintHitsBlocked(layer, t.x, t.y, h, footprint)) return { x: t.x, y: t.y, heading: h };
    }
  }
  return null;
}

/** A short text of a footprint for messages. */
export function describeFootprint(f: Footprint): string {
  if (!isRectangle(f)) return `disc radius ${f.radius}`;
  return `rectangle ${f.width} wide, ${f.length} long`;
}

/** A number rounded for messages (at most 3 decimals). */
function short(v: number): string {
  return String(Math.round(v * 1000) / 1000);
}

/**
 * Throws INVALID_ARGUMENT naming `field` when the footprint does not fit at the pose (with the heading when
 * given; with none, at any heading), suggesting the nearest legal pose. Returns a heading that fits.
 */
export function requireFits(
  layer: PassLayer,
  field: string,
  pose: { x: number; y: number; heading?: number },
  footprint: Footprint,
): number {
  const h = fittingHeading(layer, pose.x, pose.y, pose.heading, footprint);
  if (h !== null) return h;
  throw poseError(layer, field, pose, footprint);
}

/** The INVALID_ARGUMENT for a pose the footprint does not fit, with the nearest legal pose. */
export function poseError(
  layer: PassLayer,
  field: string,
  pose: { x: number; y: number; heading?: number },
  footprint: Footprint,
): ServiceError {
  const at = pose.heading === undefined
    ? isRectangle(footprint) ? "at any heading" : "there"
    : `at heading ${short(pose.heading)}`;
  const near = nearestLegalPose(layer, pose.x, pose.y, pose.heading, footprint);
  const hint = near === null
    ? `no legal pose within ${SUGGEST_RADIUS} tiles`
    : `nearest legal pose (${short(near.x)}, ${short(near.y)}, ${short(near.heading)})`;
  const value = pose.heading === undefined
    ? `(${pose.x}, ${pose.y})`
    : `(${pose.x}, ${pose.y}, ${pose.heading})`;
  return invalid(
    field,
    value,
    `tile (${Math.floor(pose.x)}, ${Math.floor(pose.y)}) is blocked for this unit: its footprint ` +
      `(${describeFootprint(footprint)}) ${at} overlaps a blocked tile or the map edge; ${hint}`,
  );
}

/** Largest map (tiles) whose footprint-reach labels are computed (4 bytes a tile, cached per layer version). */
export const REACH_LABEL_MAX_TILES = 1 << 22;

/**
 * Bytes of footprint-reach labels kept (this thread, every layer), least recently used out first. Labels are made
 * per inscribed radius, which a client chooses freely with its footprint, 4 bytes a tile each (16 MB at
 * {@link REACH_LABEL_MAX_TILES}): without a bound a client sending many footprints grew this thread by that much
 * per footprint until the map version was evicted.
 */
export const REACH_LABEL_CACHE_BYTES = 64 << 20;

const reachCache = new WeakMap<PassLayer, Map<number, Int32Array>>();
/** Each labels array's entry in {@link reachLru} (a token: the bound holds no layer's labels alive). */
const reachTokens = new WeakMap<Int32Array, object>();
/**
 * The (layer, radius) entries, by token; an evicted one leaves its layer's map. A layer dropped meanwhile takes
 * its labels with it (its entries here count until they age out, which only evicts others sooner).
 */
const reachLru = new ByteLru<object, { byRadius: WeakRef<Map<number, Int32Array>>; inscribed: number }>(
  REACH_LABEL_CACHE_BYTES,
  (_token, entry) => void entry.byRadius.deref()?.delete(entry.inscribed),
);

/** Bytes of footprint-reach labels counted now (tests). */
export function reachLabelBytes(): number {
  return reachLru.bytes;
}

/** Sets the labels' byte bound (tests); returns the previous one. */
export function setReachLabelLimit(bytes: number): number {
  const previous = reachLru.limit;
  reachLru.limit = bytes;
  return previous;
}

/**
 * The footprint-reach labels of a layer version for an inscribed radius (src/geometry/footprintReach.ts),
 * computed once per layer (a layer never changes; a patch makes a new one, and the labels go with the old one)
 * and kept within {@link REACH_LABEL_CACHE_BYTES}, or null for maps above {@link REACH_LABEL_MAX_TILES}.
 */
export function footprintReachLabels(
  layer: PassLayer,
  inscribed: number,
  minClearance: number,
): Int32Array | null {
  if (layer.width * layer.height > REACH_LABEL_MAX_TILES) return null;
  let byRadius = reachCache.get(layer);
  if (byRadius === undefined) reachCache.set(layer, byRadius = new Map());
  let labels = byRadius.get(inscribed);
  if (labels === undefined) {
    labels = reachLabels(layer, inscribed, minClearance);
    byRadius.set(inscribed, labels);
    const token = {};
    reachTokens.set(labels, token);
    reachLru.set(token, { byRadius: new WeakRef(byRadius), inscribed }, labels.byteLength);
  } else {
    const token = reachTokens.get(labels);
    if (token !== undefined) reachLru.get(token);
  }
  return labels;
}
