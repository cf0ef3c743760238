/**
 * An obstacle-aware lower bound on the length of a unit's path to the goal: the Euclidean shortest-path
 * (geodesic) distance of a point through the open tiles, from a tile center to the nearest goal end.
 *
 * Why it is a lower bound: the footprint never overlaps a blocked tile's interior (src/geometry/sweep.ts), so
 * the unit's center stays in the closed open region: the union of the closed open squares, without the
 * seams between two blocked squares (a point there overlaps both). The center's path is one of the curves
 * the geodesic distance minimizes over, so it is at least that long. Passing exactly along a blocked edge or
 * through the shared corner of two diagonal blocked tiles is allowed here (the sweep refuses both): a larger
 * region only lowers the bound.
 *
 * The geodesic in a polygonal region is a polyline whose inner vertices are convex corners of the blocked
 * region (here: grid vertices with three open squares around them, or two diagonal ones). The distance of
 * each such corner to the goal ends comes from one Dijkstra over the corners' visibility graph per query;
 * a tile center's distance is then the smallest (corner distance + straight distance) over the corners (and
 * goal ends) it sees, evaluated lazily for the tiles the search touches: candidates in increasing order of
 * that sum, the first visible one gives the exact minimum.
 *
 * Clearance: the footprint contains a disc of the inscribed radius rho around the center, so the center also
 * keeps a distance >= rho from every blocked square. The bound can use any region that contains the center's
 * possible positions: blocked squares grown by a = rho / sqrt(2) on every side lie within distance rho of the
 * square (the grown corner is at distance exactly rho), so the region outside the grown squares qualifies.
 * Its geodesics bend at the grown squares' outer corners (the convex corners moved by a diagonally outward,
 * unless another grown square covers them); visibility then tests the segment against the grown squares of
 * the blocked tiles around each cell it crosses (a < 1). Around doors this adds most of the length that a
 * wide unit's detour around a corner costs over a point's.
 *
 * Outside the search window every tile inside the map counts as open (unless the search keeps to roads), so
 * the bound also holds for curves that leave the window (analytic expansions are swept against the map).
 * Visibility tests are exact up to floating-point rounding on the lenient side: pieces of a segment shorter
 * than 1e-9 of it are not tested.
 *
 * @module
 */

/** More corners than this and the bound is not computed (the visibility graph grows quadratically). */
export const MAX_GEODESIC_CORNERS = 400;

/** Lazily evaluated geodesic distances over a padded local grid (see the module doc). */
export class GeodesicBound {
  /** Columns of the local grid. */
  private stride = 0;
  /** Rows of the local grid. */
  private rows = 0;
  /** 1 = open (local grid, including the padding). */
  private mask = new Uint8Array(0);
  /** Candidate points (goal ends first, then corners), local continuous coordinates. */
  private px = new Float64Array(0);
  private py = new Float64Array(0);
  /** Geodesic distance of each candidate to the goal ends (Infinity when unreachable). */
  private dist = new Float64Array(0);
  /** Number of candidates. */
  private count = 0;
  /** Scratch keys of a tile evaluation. */
  private keys = new Float64Array(0);
  /** Growth a of the blocked squares (0: none, and the exact grid-line visibility test). */
  private grow = 0;
  /** Per local tile: 1 when a blocked tile (or the grid's edge) is within its 3 x 3 neighbourhood. */
  private nearBlocked = new Uint8Array(0);
  /** False when the bound is not available for this query (too many corners). */
  enabled = false;

  /**
   * Prepares a query. `open` is the window's open mask on a local grid of `stride` x `rows` tiles whose
   * window occupies [pad, stride - pad) x [pad, rows - pad); `outsideOpen(lx, ly)` tells whether a padding
   * tile counts as open. Goal ends are points in local coordinates (pairs in `ends`). `clearance` is the
   * footprint's inscribed radius (see the module doc). Returns `enabled`.
   */
  configure(
    open: Uint8Array,
    stride: number,
    rows: number,
    pad: number,
    outsideOpen: (lx: number, ly: number) => boolean,
    ends: readonly number[],
    clearance = 0,
  ): boolean {
    this.stride = stride;
    this.rows = rows;
    // Shrunk by a relative 1e-9 so rounding can never place the grown corner beyond distance rho.
    const a = Math.min(0.99, Math.max(0, clearance) * (1 - 1e-9) / Math.SQRT2);
    this.grow = a;
    const area = stride * rows;
    if (this.mask.length < area) {
      this.mask = new Uint8Array(area);
      this.nearBlocked = new Uint8Array(area);
    }
    const mask = this.mask;
    for (let ly = 0; ly < rows; ly++) {
      for (let lx = 0; lx < stride; lx++) {
        const i = ly * stride + lx;
        const inside = lx >= pad && ly >= pad && lx < stride - pad && ly < rows - pad;
        mask[i] = inside ? open[i] : outsideOpen(lx, ly) ? 1 : 0;
      }
    }
    if (a > 0) {
      const near = this.nearBlocked;
      for (let ly = 0; ly < rows; ly++) {
        for (let lx = 0; lx < stride; lx++) {
          let nb = 0;
          for (let j = -1; j <= 1 && nb === 0; j++) {
            for (let i = -1; i <= 1; i++) {
              if (this.openAt(lx + i, ly + j) === 0) {
                nb = 1;
                break;
              }
            }
          }
          near[ly * stride + lx] = nb;
        }
      }
    }
    // Candidates: the goal ends, then the convex corners (and, without growth, the pinch points) of the
    // blocked region.
    const px: number[] = [];
    const py: number[] = [];
    for (let i = 0; i < ends.length; i += 2) {
      px.push(ends[i]);
      py.push(ends[i + 1]);
    }
    const sources = px.length;
    for (let y = 1; y < rows; y++) {
      for (let x = 1; x < stride; x++) {
        const tl = mask[(y - 1) * stride + x - 1], tr = mask[(y - 1) * stride + x];
        const bl = mask[y * stride + x - 1], br = mask[y * stride + x];
        const n = tl + tr + bl + br;
        if (a === 0) {
          if (n === 3 || (n === 2 && tl === br)) {
            px.push(x);
            py.push(y);
          }
          continue;
        }
        if (n !== 3) continue;
        // Away from the one blocked square, diagonally.
        const cx = tl === 0 || bl === 0 ? x + a : x - a;
        const cy = tl === 0 || tr === 0 ? y + a : y - a;
        if (!this.insideGrown(cx, cy)) {
          px.push(cx);
          py.push(cy);
        }
      }
    }
    this.count = px.length;
    this.enabled = this.count - sources <= MAX_GEODESIC_CORNERS && sources > 0;
    if (!this.enabled) return false;
    if (this.px.length < this.count) {
      this.px = new Float64Array(this.count);
      this.py = new Float64Array(this.count);
      this.dist = new Float64Array(this.count);
      this.keys = new Float64Array(this.count);
    }
    this.px.set(px);
    this.py.set(py);
    this.cornerDistances(sources);
    return true;
  }

  /** Dijkstra over the visibility graph of the candidates, from the goal ends (O(n^2) with lazy visibility). */
  private cornerDistances(sources: number): void {
    const n = this.count;
    const px = this.px, py = this.py, dist = this.dist;
    const done = this.keys; // scratch: 1 = settled
    for (let i = 0; i < n; i++) {
      dist[i] = i < sources ? 0 : Infinity;
      done[i] = 0;
    }
    for (;;) {
      let u = -1;
      let du = Infinity;
      for (let i = 0; i < n; i++) {
        if (done[i] === 0 && dist[i] < du) {
          du = dist[i];
          u = i;
        }
      }
      if (u < 0) break;
      done[u] = 1;
      const ux = px[u], uy = py[u];
      for (let v = sources; v < n; v++) {
        if (done[v] !== 0) continue;
        const ex = px[v] - ux, ey = py[v] - uy;
        const nd = du + Math.sqrt(ex * ex + ey * ey);
        if (nd < dist[v] && this.visible(ux, uy, px[v], py[v])) dist[v] = nd;
      }
    }
  }

  /**
   * The geodesic distance (tiles) from the center of local tile (lx, ly) to the nearest goal end, Infinity
   * when no goal end or reachable corner is visible from it.
   */
  at(lx: number, ly: number): number {
    if (!this.enabled) return 0;
    const cx = lx + 0.5, cy = ly + 0.5;
    const n = this.count;
    const px = this.px, py = this.py, dist = this.dist, keys = this.keys;
    for (let i = 0; i < n; i++) {
      const ex = px[i] - cx, ey = py[i] - cy;
      keys[i] = dist[i] + Math.sqrt(ex * ex + ey * ey);
    }
    for (;;) {
      let best = -1;
      let bk = Infinity;
      for (let i = 0; i < n; i++) {
        if (keys[i] < bk) {
          bk = keys[i];
          best = i;
        }
      }
      if (best < 0) return Infinity;
      if (this.visible(cx, cy, px[best], py[best])) return bk;
      keys[best] = Infinity;
    }
  }

  /** True when point (x, y) lies strictly inside the grown square of a blocked tile. */
  private insideGrown(x: number, y: number): boolean {
    const a = this.grow;
    for (let j = Math.floor(y - 1 - a); j <= Math.floor(y + a); j++) {
      for (let i = Math.floor(x - 1 - a); i <= Math.floor(x + a); i++) {
        if (this.openAt(i, j) !== 0) continue;
        if (x > i - a && x < (i + 1) + a && y > j - a && y < (j + 1) + a) return true;
      }
    }
    return false;
  }

  /** True when the segment a-b crosses the interior of the grown square of blocked tile (i, j). */
  private hitsGrown(ax: number, ay: number, dx: number, dy: number, i: number, j: number): boolean {
    const a = this.grow;
    let t0 = 0, t1 = 1;
    // Liang-Barsky, one slab per axis: x in (i - a, i + 1 + a), then y in (j - a, j + 1 + a).
    for (let axis = 0; axis < 2; axis++) {
      const p = axis === 0 ? ax : ay, d = axis === 0 ? dx : dy, c = axis === 0 ? i : j;
      const lo = c - a, hi = (c + 1) + a;
      if (d === 0) {
        if (!(p > lo && p < hi)) return false;
        continue;
      }
      let u = (lo - p) / d, v = (hi - p) / d;
      // Ordered in place (as in walkable's row scan): a helper would have to return two numbers.
      if (u > v) {
        const w = u;
        u = v;
        v = w;
      }
      if (u > t0) t0 = u;
      if (v < t1) t1 = v;
    }
    return t1 - t0 > 1e-9;
  }

  /** 1 when local tile (x, y) is open; tiles off the local grid are closed. */
  private openAt(x: number, y: number): number {
    if (x < 0 || y < 0 || x >= this.stride || y >= this.rows) return 0;
    return this.mask[y * this.stride + x];
  }

  /**
   * True when the segment a-b stays in the region: without growth, every piece of it between grid lines lies
   * in an open square, and a piece running along a grid line borders an open square; with growth, it crosses
   * no grown square's interior (tested for the blocked tiles around each cell it crosses).
   */
  visible(ax: number, ay: number, bx: number, by: number): boolean {
    const dx = bx - ax, dy = by - ay;
    const grown = this.grow > 0;
    if (!grown && dx === 0 && Number.isInteger(ax)) {
      const lo = Math.min(ay, by), hi = Math.max(ay, by);
      for (let y = Math.floor(lo); y < hi; y++) {
        if (this.openAt(ax - 1, y) === 0 && this.openAt(ax, y) === 0) return false;
      }
      return true;
    }
    if (!grown && dy === 0 && Number.isInteger(ay)) {
      const lo = Math.min(ax, bx), hi = Math.max(ax, bx);
      for (let x = Math.floor(lo); x < hi; x++) {
        if (this.openAt(x, ay - 1) === 0 && this.openAt(x, ay) === 0) return false;
      }
      return true;
    }
    // Walk the crossings with the grid lines in order of the parameter t; test each piece at its midpoint.
    let nx = dx > 0 ? Math.floor(ax) + 1 : Math.ceil(ax) - 1;
    let ny = dy > 0 ? Math.floor(ay) + 1 : Math.ceil(ay) - 1;
    const sx = dx > 0 ? 1 : -1, sy = dy > 0 ? 1 : -1;
    let tx = dx !== 0 ? (nx - ax) / dx : Infinity;
    let ty = dy !== 0 ? (ny - ay) / dy : Infinity;
    let t = 0;
    while (t < 1) {
      const tn = Math.min(tx, ty, 1);
      if (tn - t > 1e-9) {
        const m = (t + tn) * 0.5;
        const cx = Math.floor(ax + m * dx), cy = Math.floor(ay + m * dy);
        if (!grown) {
          if (this.openAt(cx, cy) === 0) return false;
        } else if (cx < 0 || cy < 0 || cx >= this.stride || cy >= this.rows) return false;
        else if (this.nearBlocked[cy * this.stride + cx] !== 0) {
          for (let j = cy - 1; j <= cy + 1; j++) {
            for (let i = cx - 1; i <= cx + 1; i++) {
              if (this.openAt(i, j) === 0 && this.hitsGrown(ax, ay, dx, dy, i, j)) return false;
            }
          }
        }
      }
      t = tn;
      if (tx === tn) {
        nx += sx;
        tx = (nx - ax) / dx;
      }
      if (ty === tn) {
        ny += sy;
        ty = (ny - ay) / dy;
      }
    }
    return true;
  }
}
