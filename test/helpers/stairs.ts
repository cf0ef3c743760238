/**
 * A staircase corridor for turning units (streams' drivable first answers, issue 13 item 1): `w` tiles wide,
 * east `step` tiles then south `step` tiles, `n` times. The hybrid's curve fit cannot follow it (its corners
 * are too tight for a fit along the smoothed grid path); its later steps and PLANNER_DIRECTIONAL can. Blocked
 * tiles pad the map to at least `size` a side: on a big enough map a long query's directional window is cut
 * by its state cap, so PLANNER_DIRECTIONAL follows a grid corridor window by window.
 */

/** The staircase's Moving AI rows, its start (west end, heading east) and its goal (south-east end). */
export function stairsMap(w: number, step: number, n: number, size = 0): {
  rows: string[];
  start: { x: number; y: number; heading: number };
  goal: { x: number; y: number };
} {
  const W = Math.max(n * step + w + 4, size), H = W;
  const open = new Uint8Array(W * H);
  let x = 2, y = 2;
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < step + w; k++) for (let d = 0; d < w; d++) open[(y + d) * W + x + k] = 1;
    x += step;
    for (let k = 0; k < step + w; k++) for (let d = 0; d < w; d++) open[(y + k) * W + x + d] = 1;
    y += step;
  }
  const rows: string[] = [];
  for (let r = 0; r < H; r++) {
    let s = "";
    for (let c = 0; c < W; c++) s += open[r * W + c] ? "." : "@";
    rows.push(s);
  }
  return { rows, start: { x: 2 + w / 2, y: 2 + w / 2, heading: 0 }, goal: { x: x + w / 2, y: y + w / 2 } };
}
