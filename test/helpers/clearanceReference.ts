/**
 * The clearance pass as it was before the outward row scan (commit 2fa86ce, src/maps/layer.ts): column distances
 * in two sweeps, then per row the lower envelope of parabolas (Felzenszwalb & Huttenlocher). Kept verbatim as
 * the reference the faster pass must equal bit for bit (test/maps/clearancePass.test.ts).
 */
import { MAX_CLEARANCE, type PassLayer } from "../../src/maps/grid.ts";
import type { TileRect } from "../../src/maps/layer.ts";

const CAP_REACH = Math.floor(MAX_CLEARANCE + 0.5);
const FSQ4 = (() => {
  const table = new Int32Array(CAP_REACH + 2);
  for (let k = 0; k < table.length; k++) table[k] = Math.max(0, 2 * k - 1) ** 2;
  return table;
})();
const FAR = CAP_REACH + 1;
const CAP_SQ4 = Math.ceil(4 * MAX_CLEARANCE * MAX_CLEARANCE);
const CLEARANCE_OF = (() => {
  const table = new Float32Array(CAP_SQ4 + 1);
  for (let b = 0; b <= CAP_SQ4; b++) table[b] = Math.min(Math.sqrt(b) * 0.5, MAX_CLEARANCE);
  return table;
})();

/** A pass layer's costs with float clearances (what layers stored before clearance codes). */
export type FloatClearanceLayer = Pick<PassLayer, "width" | "height" | "tileCost"> & {
  clearance: Float32Array;
};

/** The former fillClearance: writes layer.clearance for the tiles of `out` from layer.tileCost. */
export function referenceFillClearance(layer: FloatClearanceLayer, out: TileRect): void {
  const { width, height, tileCost, clearance } = layer;
  if (out.x0 >= out.x1 || out.y0 >= out.y1) return;
  const ex0 = Math.max(0, out.x0 - FAR);
  const ex1 = Math.min(width, out.x1 + FAR);
  const ey0 = Math.max(0, out.y0 - FAR);
  const ey1 = Math.min(height, out.y1 + FAR);
  const ew = ex1 - ex0;
  // colDist[(y - ey0) * ew + (x - ex0)]: rows to the nearest blocked tile in column x, clamped to FAR; the map's
  // top and bottom borders are blocked (rows -1 and height), a window edge inside the map is "far".
  const colDist = new Uint8Array(ew * (ey1 - ey0));
  const top = ey0 === 0 ? 1 : FAR;
  for (let x = 0; x < ew; x++) colDist[x] = tileCost[ey0 * width + ex0 + x] === 0 ? 0 : top;
  for (let y = ey0 + 1; y < ey1; y++) {
    const base = (y - ey0) * ew;
    const tileBase = y * width + ex0;
    for (let x = 0; x < ew; x++) {
      const up = colDist[base - ew + x];
      colDist[base + x] = tileCost[tileBase + x] === 0 ? 0 : up < FAR ? up + 1 : FAR;
    }
  }
  const bottom = ey1 === height ? 1 : FAR;
  const lastBase = (ey1 - 1 - ey0) * ew;
  for (let x = 0; x < ew; x++) if (colDist[lastBase + x] > bottom) colDist[lastBase + x] = bottom;
  for (let y = ey1 - 2; y >= ey0; y--) {
    const base = (y - ey0) * ew;
    for (let x = 0; x < ew; x++) {
      const down = colDist[base + ew + x] + 1;
      if (down < colDist[base + x]) colDist[base + x] = down;
    }
  }
  // Per row: g[x - ex0] = h(column distance); parabola j (centre x = ex0 + j - 1/2, doubled: 2 (ex0 + j) - 1)
  // has height min(g left of it, g right of it); the map's left and right borders are blocked columns (g = 0).
  const g = new Int32Array(ew);
  const pc = new Int32Array(ew + 1); // doubled centres of the envelope's parabolas
  const ph = new Int32Array(ew + 1); // their heights
  const pz = new Float64Array(ew + 2); // doubled x where each starts being the lowest
  const leftEdge = ex0 === 0 ? 0 : CAP_SQ4;
  const rightEdge = ex1 === width ? 0 : CAP_SQ4;
  for (let y = out.y0; y < out.y1; y++) {
    const base = (y - ey0) * ew;
    let k = -1;
    let left = leftEdge;
    for (let j = 0, cj = 2 * ex0 - 1; j <= ew; j++, cj += 2) {
      const right = j === ew ? rightEdge : (g[j] = FSQ4[colDist[base + j]]);
      const hj = left < right ? left : right;
      left = right;
      if (hj >= CAP_SQ4) continue;
      const fj = hj + cj * cj;
      let s = 0;
      while (k >= 0) {
        // Doubled x where parabola j gets below the envelope's last one.
        s = (fj - ph[k] - pc[k] * pc[k]) / (2 * (cj - pc[k]));
        if (s > pz[k]) break;
        k--;
      }
      k++;
      pc[k] = cj;
      ph[k] = hj;
      pz[k] = k === 0 ? -Infinity : s;
    }
    pz[k + 1] = Infinity;
    const rowBase = y * width;
    if (k < 0) {
      for (let x = out.x0; x < out.x1; x++) {
        const b = g[x - ex0];
        clearance[rowBase + x] = CLEARANCE_OF[b < CAP_SQ4 ? b : CAP_SQ4];
      }
      continue;
    }
    let q = 0;
    for (let x = out.x0; x < out.x1; x++) {
      let b = g[x - ex0];
      const xx = 2 * x;
      while (pz[q + 1] < xx) q++;
      const d = xx - pc[q];
      const v = ph[q] + d * d;
      if (v < b) b = v;
      clearance[rowBase + x] = CLEARANCE_OF[b < CAP_SQ4 ? b : CAP_SQ4];
    }
  }
}
