/**
 * Test-side pass-layer helpers, independent of src/maps on purpose.
 *
 * @module
 */

/** Brute-force clearance: distance from each open tile's center to the nearest blocked square or the border. */
export function bruteClearance(
  width: number,
  height: number,
  cost: Float32Array,
  cap = Infinity,
): Float32Array {
  const clearance = new Float32Array(width * height);
  const reach = Number.isFinite(cap) ? Math.ceil(cap) + 1 : Math.max(width, height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (cost[y * width + x] === 0) continue;
      const cx = x + 0.5;
      const cy = y + 0.5;
      let best = Math.min(cap, cx, cy, width - cx, height - cy);
      for (let j = y - reach; j <= y + reach; j++) {
        for (let i = x - reach; i <= x + reach; i++) {
          if (i < 0 || j < 0 || i >= width || j >= height || cost[j * width + i] > 0) continue;
          const dx = Math.max(i - cx, 0, cx - (i + 1));
          const dy = Math.max(j - cy, 0, cy - (j + 1));
          best = Math.min(best, Math.hypot(dx, dy));
        }
      }
      clearance[y * width + x] = best;
    }
  }
  return clearance;
}
