/**
 * A sharper over-approximation of where a footprint's center can be than the clearance class of
 * reachClearanceClass (src/maps/layer.ts): per tile, whether some point of the closed tile keeps the footprint's
 * inscribed disc off every blocked tile, tested on a lattice of points with the radius shrunk by the lattice's
 * covering radius. A 1-wide door is then closed to the tank (radius 0.9), which the class (0.5, every open tile)
 * cannot tell; the labels of the 4-connected components of such tiles never separate two poses a legal motion
 * joins (the same chain argument as for the class).
 *
 * @module
 */
import { CLEARANCE_VALUES, type PassLayer } from "../maps/grid.ts";
import { discHitsBlocked } from "./sweep.ts";

/** Lattice points per tile side (edges included): 5, spacing 0.25. */
const SIDE = 5;
/** Every point of the closed tile is within this of a lattice point. */
const COVER = Math.SQRT2 / (2 * (SIDE - 1));

/**
 * True unless no point of the closed tile (tx, ty) can be the center of a disc of radius `inscribed` that stays
 * off every blocked tile's interior (the map's outside counts as blocked). `minClearance` is
 * reachClearanceClass(inscribed): below it the tile is closed by that argument, no lattice needed.
 *
 * Why the lattice test is safe: if p in the tile is at least `inscribed` from every blocked square, the lattice
 * point s nearest p is within COVER of p, so at least inscribed - COVER from every blocked square, and the disc
 * of that radius at s touches no blocked interior (discHitsBlocked is exact).
 */
export function mayHoldCenter(
  layer: PassLayer,
  tx: number,
  ty: number,
  inscribed: number,
  minClearance: number,
): boolean {
  const t = ty * layer.width + tx;
  if (layer.tileCost[t] === 0) return false;
  const c = CLEARANCE_VALUES[layer.clearanceCode[t]];
  if (c >= inscribed) return true; // the center itself holds the disc
  if (c < minClearance) return false;
  const r = inscribed - COVER;
  if (r <= 0) return true;
  for (let j = 0; j < SIDE; j++) {
    for (let i = 0; i < SIDE; i++) {
      if (!discHitsBlocked(layer, tx + i / (SIDE - 1), ty + j / (SIDE - 1), r)) return true;
    }
  }
  return false;
}

/**
 * Component label per tile (-1 where {@link mayHoldCenter} is false) of the 4-connected components of the tiles
 * that may hold the footprint's center. Two tiles with different labels (or a -1) are joined by no legal motion
 * of a footprint whose inscribed radius is `inscribed`.
 */
export function reachLabels(layer: PassLayer, inscribed: number, minClearance: number): Int32Array {
  const { width, height } = layer;
  const n = width * height;
  const label = new Int32Array(n).fill(-2); // -2: open, not yet labelled
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (!mayHoldCenter(layer, x, y, inscribed, minClearance)) label[y * width + x] = -1;
    }
  }
  const queue = new Int32Array(n);
  let next = 0;
  for (let s = 0; s < n; s++) {
    if (label[s] !== -2) continue;
    let head = 0, tail = 0;
    queue[tail++] = s;
    label[s] = next;
    while (head < tail) {
      const t = queue[head++];
      const x = t % width;
      const left = x > 0 ? t - 1 : -1;
      const right = x < width - 1 ? t + 1 : -1;
      const up = t >= width ? t - width : -1;
      const down = t + width < n ? t + width : -1;
      for (const u of [left, right, up, down]) {
        if (u < 0 || label[u] !== -2) continue;
        label[u] = next;
        queue[tail++] = u;
      }
    }
    next++;
  }
  return label;
}
