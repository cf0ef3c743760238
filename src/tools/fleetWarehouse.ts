/**
 * A warehouse aisle grid for the fleet scenarios (tests at small size, the bench at full size, the README's fleet
 * picture): shelf blocks two tiles wide separated by one-tile aisles (two robots cannot pass each other in one),
 * two-tile cross aisles between blocks and around the edge, and one-tile pick bays cut into the shelves along the
 * aisles, where robots start and stop (a robot standing in a bay leaves the aisle free). Deterministic.
 *
 * @module
 */

/** A warehouse map and its pick bays (tile centres). */
export interface Warehouse {
  /** Moving AI rows ('.' open, '@' shelf). */
  rows: string[];
  /** Bay centres, in row-major order. */
  bays: { x: number; y: number }[];
}

/** Shelf rows per block. */
const BLOCK = 6;

/**
 * A warehouse of `cols` shelf columns and `blocks` blocks of shelves stacked vertically. Width 3 * cols + 5,
 * height 8 * blocks + 2.
 */
export function warehouse(cols: number, blocks: number): Warehouse {
  const width = 3 * cols + 5, height = blocks * (BLOCK + 2) + 2;
  const grid = Array.from({ length: height }, () => Array.from({ length: width }, () => "."));
  const bays: { x: number; y: number }[] = [];
  for (let b = 0; b < blocks; b++) {
    const y0 = 2 + b * (BLOCK + 2);
    for (let c = 0; c < cols; c++) {
      const left = 3 + 3 * c, right = left + 1;
      for (let y = y0; y < y0 + BLOCK; y++) {
        // Bays alternate sides, never both at one row (the shelf stays a wall between its aisles).
        const r = y - y0;
        grid[y][left] = r % 3 === 1 ? "." : "@";
        grid[y][right] = r % 3 === 2 ? "." : "@";
      }
    }
  }
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      // A bay: an open tile with shelf above and below (cut into a shelf column).
      const shelfAround = grid[y - 1]?.[x] === "@" && grid[y + 1]?.[x] === "@";
      if (grid[y][x] === "." && shelfAround) bays.push({ x: x + 0.5, y: y + 0.5 });
    }
  }
  return { rows: grid.map((r) => r.join("")), bays };
}

/** A Moving AI map file's text for rows. */
export function movingAiText(rows: string[]): string {
  return ["type octile", `height ${rows.length}`, `width ${rows[0].length}`, "map", ...rows].join("\n");
}

/**
 * `n` robots: distinct start bays and distinct goal bays (a goal may be another robot's start), each goal
 * different from its own start, chosen with a seeded generator.
 */
export function warehouseJobs(
  w: Warehouse,
  n: number,
  seed: number,
): { id: string; x: number; y: number; gx: number; gy: number }[] {
  if (n > w.bays.length) throw new RangeError(`${n} robots for ${w.bays.length} bays`);
  let s = seed;
  const rnd = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
  const shuffled = (xs: number[]) => {
    const a = [...xs];
    for (let i = a.length - 1; i > 0; i--) {
      const j = Math.floor(rnd() * (i + 1));
      [a[i], a[j]] = [a[j], a[i]];
    }
    return a;
  };
  const idx = w.bays.map((_, i) => i);
  const starts = shuffled(idx).slice(0, n);
  let goals = shuffled(idx).slice(0, n);
  // Nobody's goal is its own start: rotate until so (n >= 2).
  for (let k = 0; k < n && goals.some((g, i) => g === starts[i]); k++) goals = [...goals.slice(1), goals[0]];
  return starts.map((si, i) => ({
    id: `r${i}`,
    x: w.bays[si].x,
    y: w.bays[si].y,
    gx: w.bays[goals[i]].x,
    gy: w.bays[goals[i]].y,
  }));
}
