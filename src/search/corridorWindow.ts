/**
 * The corridor of a grid path for the article's pre-smoothing pass ("A Better Smoothing Pass"): a directional
 * search whose nodes may only sit on the path's tiles, so it hops along the path (skipping tiles where a curve
 * allows) and finds the headings at each waypoint that make the turns legal.
 *
 * @module
 */
import type { TileRect } from "../maps/layer.ts";

/** A per-map-tile mask with 1 on the path's tiles (and, with `dilate` > 0, tiles within that many steps). */
export function corridorMask(path: ArrayLike<number>, width: number, height: number, dilate = 0): Uint8Array {
  const mask = new Uint8Array(width * height);
  for (let i = 0; i < path.length; i++) {
    const t = path[i];
    const y = (t / width) | 0;
    const x = t - y * width;
    for (let dy = -dilate; dy <= dilate; dy++) {
      for (let dx = -dilate; dx <= dilate; dx++) {
        const nx = x + dx, ny = y + dy;
        if (nx >= 0 && ny >= 0 && nx < width && ny < height) mask[ny * width + nx] = 1;
      }
    }
  }
  return mask;
}

/** The bounding box of a path's tiles grown by `margin`, clipped to the map (half-open, as TileRect). */
export function corridorWindow(
  path: ArrayLike<number>,
  width: number,
  height: number,
  margin: number,
): TileRect {
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (let i = 0; i < path.length; i++) {
    const t = path[i];
    const y = (t / width) | 0;
    const x = t - y * width;
    if (x < x0) x0 = x;
    if (y < y0) y0 = y;
    if (x > x1) x1 = x;
    if (y > y1) y1 = y;
  }
  return {
    x0: Math.max(0, x0 - margin),
    y0: Math.max(0, y0 - margin),
    x1: Math.min(width, x1 + 1 + margin),
    y1: Math.min(height, y1 + 1 + margin),
  };
}
