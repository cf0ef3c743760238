/**
 * The article's direction table: for a Directional-N search (N = 8, 24 or 48) the relative (dx, dy) of the
 * child tiles of a node, i.e. every tile in the (2k+1) x (2k+1) square around it (k = 1, 2, 3) except itself.
 * Children are ordered ring by ring, and counter-clockwise from +x within a ring, so nearer children come first.
 *
 * Also the discrete headings a directional search uses: H equally spaced angles, heading i = 2*pi*i/H.
 *
 * @module
 */

/** Neighbourhood sizes of a directional search. */
export type DirectionalNeighborhood = 8 | 24 | 48;

/** The ring radius (1, 2 or 3) of a Directional-N neighbourhood. */
export function neighborhoodReach(n: DirectionalNeighborhood): number {
  return n === 8 ? 1 : n === 24 ? 2 : 3;
}

/** True for a supported directional neighbourhood size. */
export function isDirectionalNeighborhood(n: number): n is DirectionalNeighborhood {
  return n === 8 || n === 24 || n === 48;
}

/** The child offsets of a Directional-N search as (dx, dy) pairs: `table[2i], table[2i+1]` (DirTable[i]). */
export function directionTable(n: DirectionalNeighborhood): Int8Array {
  const reach = neighborhoodReach(n);
  const out = new Int8Array(2 * n);
  let count = 0;
  for (let ring = 1; ring <= reach; ring++) {
    const cells: [number, number, number][] = [];
    for (let dy = -ring; dy <= ring; dy++) {
      for (let dx = -ring; dx <= ring; dx++) {
        if (Math.max(Math.abs(dx), Math.abs(dy)) !== ring) continue;
        let a = Math.atan2(dy, dx);
        if (a < 0) a += 2 * Math.PI;
        cells.push([a, dx, dy]);
      }
    }
    cells.sort((p, q) => p[0] - q[0]);
    for (const [, dx, dy] of cells) {
      out[2 * count] = dx;
      out[2 * count + 1] = dy;
      count++;
    }
  }
  return out;
}

/**
 * Number of discrete headings for a directional search. A unit that declares 8 or 16 headings gets them;
 * otherwise Directional-8 uses 8 (the article's compass directions: each child is reached along one of them)
 * and Directional-24/48 use 16, because their children lie at 22.5-degree-ish bearings (e.g. (2, 1)) that
 * 8 headings would force into needless S-bends.
 */
export function headingCount(n: DirectionalNeighborhood, unitHeadings: number): number {
  if (unitHeadings === 8 || unitHeadings === 16) return unitHeadings;
  return n === 8 ? 8 : 16;
}

/** The angle of discrete heading i out of `count` (radians, 0 = +x, counter-clockwise towards +y). */
export function headingAngle(i: number, count: number): number {
  return (2 * Math.PI * i) / count;
}

/** The discrete heading nearest to an angle. */
export function nearestHeading(angle: number, count: number): number {
  const step = (2 * Math.PI) / count;
  let i = Math.round(angle / step) % count;
  if (i < 0) i += count;
  return i;
}
