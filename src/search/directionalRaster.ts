/**
 * The window raster of a directional search: the search window padded by the hit-check table's reach, with
 * per local tile its open flag, node flag, tile cost, free reach and row bits, filled lazily by blocks of
 * tiles on first use (generation stamps, no clearing), so a query costs what it touches, not its window. The padding is closed, so no transition
 * can leave the window and no bounds test is needed. Cells are open when passable (and on a road when the
 * search is confined to roads).
 *
 * Also the exact sweep of off-table curves and the node state layout over the raster: ((local tile * headings)
 * + heading) * directions + last-reverse. The tables that make a transition's cell test cheap (row bitmasks,
 * reaches, per-width offsets) are src/search/transitionCells.ts.
 *
 * @module
 */
import { footprintHitsBlocked, segmentHitsBlocked } from "../geometry/sweep.ts";
import type { Pose, Segment } from "../geometry/types.ts";
import { type PassLayer, uniformCost as layerUniformCost } from "../maps/grid.ts";
import type { TileRect } from "../maps/layer.ts";
import type { Footprint } from "../units/footprint.ts";
import { headingAngle } from "./directionTable.ts";
import type { DirectionalSetup } from "./directionalSetup.ts";
import { releaseWindowOffsets, rowMasksOf, windowOffsets } from "./transitionCells.ts";

/** Side of a lazily filled block of the raster (tiles). */
const BLOCK = 32;

/** Windows up to this many local tiles are also scanned whole when that sharpens the search (uniform cost). */
export const EAGER_AREA = 128 * 128;

/**
 * The padded window of one query (configure per query, reuse across queries: allocates only when the window
 * grows). Fields are public for the search loop, which reads them into locals once per expansion.
 */
export class WindowRaster {
  /** Headings per tile (the table's). */
  headings = 8;
  /** 2 when states carry the direction of the last motion (reversing units), else 1. */
  directions = 1;
  /** Padding on each side: the table's reach plus one. */
  pad = 0;
  /** Local row length (window width plus padding). */
  stride = 0;
  /** Local rows (window height plus padding). */
  rows = 0;
  /** Local tiles (stride * rows). */
  area = 0;
  /** First map column of the window. */
  x0 = 0;
  /** First map row of the window. */
  y0 = 0;
  /** Per local tile: 1 when open. */
  open = new Uint8Array(0);
  /** Per local tile: 1 when a node state may sit there (open, in the node mask, the goal reachable). */
  nodeOk = new Uint8Array(0);
  /** Per local tile: the map's tile cost. */
  cost = new Float32Array(0);
  /** Per local tile: the radius of the largest all-open square centered there (0 when the tile is closed). */
  freeReach = new Uint8Array(0);
  /** Per local tile: bit j set when tile (x + j - maxReach, y) is closed (see RowMasks in transitionCells.ts). */
  rowBits = new Int32Array(0);
  /** Pre-smoothing: path index per local tile (-1 off the path), or null. */
  pathIndex: Int32Array | null = null;
  /** Per transition: its destination's local offset. */
  transitionLocal: Int32Array = new Int32Array(0);
  /** Per table cell: its local offset (only without row bitmasks). */
  cellLocal: Int32Array = new Int32Array(0);
  /** Per transition: the Chebyshev reach of its cells. */
  reach: Uint8Array = new Uint8Array(0);
  /** Row bitmask entries per transition, CSR offsets (see RowMasks in transitionCells.ts). */
  rowStart: Uint32Array = new Uint32Array(0);
  /** Cell bits of each row entry. */
  rowMask: Int32Array = new Int32Array(0);
  /** Local offset of each row entry's row. */
  rowLocal: Int32Array = new Int32Array(0);
  /** The table's row bitmasks exist (else transitions are tested cell by cell). */
  useRows = false;
  /** The layer exact curves are swept against (the map, or a road-only view of the window). */
  exactLayer!: PassLayer;
  private cellStart: Uint32Array = new Uint32Array(0);
  private setup!: DirectionalSetup;
  private pathIndexBuf = new Int32Array(0);
  /** Side of the lazily filled blocks (see {@link ensureAround}). */
  private block = BLOCK;
  private blocksX = 0;
  /** Per block: the generation (query) it was filled in. */
  private blockStamp = new Uint32Array(0);
  /** Per block: the generation in which its 3 x 3 neighbourhood was filled. */
  private aroundStamp = new Uint32Array(0);
  private gen = 0;
  private blocksDone = 0;
  private scratchOpen = new Uint8Array(0);
  private scratchDist = new Uint8Array(0);
  /** Map-sized open mask for road-confined searches (1 = open road tile inside the window). */
  private roadOpen = new Uint8Array(0);
  /** All-zero clearance codes for the road view (no stretch is certified free by the map's clearance). */
  private roadClearance = new Uint8Array(0);
  /** The window the road mask currently marks (cleared lazily on the next road query). */
  private roadWindow: TileRect | null = null;

  /** Bytes of the per-window arrays (they follow the largest window since the last {@link release}). */
  get bytes(): number {
    return 11 * this.open.length + this.pathIndexBuf.byteLength + 8 * this.blockStamp.length +
      this.scratchOpen.length + this.scratchDist.length + this.roadOpen.length +
      this.roadClearance.byteLength;
  }

  /**
   * Between queries (a worker gone idle): lets go of the window arrays when they hold more than `keepBytes`
   * (the next query regrows them). Returns the bytes let go.
   */
  release(keepBytes: number): number {
    // The tables' window offsets too (see transitionCells.ts).
    const offsets = releaseWindowOffsets(keepBytes);
    const before = this.bytes;
    if (before <= keepBytes) return offsets;
    this.open = new Uint8Array(0);
    this.cost = new Float32Array(0);
    this.nodeOk = new Uint8Array(0);
    this.freeReach = new Uint8Array(0);
    this.rowBits = new Int32Array(0);
    this.pathIndex = null;
    this.pathIndexBuf = new Int32Array(0);
    this.blockStamp = new Uint32Array(0);
    this.aroundStamp = new Uint32Array(0);
    this.gen = 0;
    this.scratchOpen = new Uint8Array(0);
    this.scratchDist = new Uint8Array(0);
    // The road mask is map-sized and cleared lazily by window: a fresh one is all clear.
    this.roadOpen = new Uint8Array(0);
    this.roadClearance = new Uint8Array(0);
    this.roadWindow = null;
    return offsets + before - this.bytes;
  }

  /** Rasters the query's window lazily: O(1) here, each block of tiles on first use (see {@link ensureAround}). */
  configure(setup: DirectionalSetup): this {
    const { hit, window: w } = setup;
    const H = hit.profile.headings;
    this.setup = setup;
    this.headings = H;
    this.directions = setup.reverse && hit.profile.reverse ? 2 : 1;
    this.pad = hit.maxReach + 1;
    this.x0 = w.x0;
    this.y0 = w.y0;
    this.stride = w.x1 - w.x0 + 2 * this.pad;
    this.rows = w.y1 - w.y0 + 2 * this.pad;
    const area = this.stride * this.rows;
    this.area = area;
    if (this.open.length < area) {
      this.open = new Uint8Array(area);
      this.cost = new Float32Array(area);
      this.nodeOk = new Uint8Array(area);
      this.freeReach = new Uint8Array(area);
      this.rowBits = new Int32Array(area);
    }
    this.pathIndex = null;
    if (setup.pathIndex) {
      if (this.pathIndexBuf.length < area) this.pathIndexBuf = new Int32Array(area);
      this.pathIndex = this.pathIndexBuf;
    }
    // Blocks at least as wide as the padding: a tile's reach square lies in its block's 3 x 3 neighbourhood.
    this.block = Math.max(BLOCK, this.pad);
    this.blocksX = Math.ceil(this.stride / this.block);
    const blocks = this.blocksX * Math.ceil(this.rows / this.block);
    if (this.blockStamp.length < blocks) {
      this.blockStamp = new Uint32Array(blocks);
      this.aroundStamp = new Uint32Array(blocks);
      this.gen = 0;
    }
    if (this.gen >= 0xfffffffe) {
      this.blockStamp.fill(0);
      this.aroundStamp.fill(0);
      this.gen = 0;
    }
    this.gen++;
    this.blocksDone = 0;
    this.exactLayer = setup.roadsOnly ? this.roadLayer(setup.layer, w) : setup.layer;
    const lo = windowOffsets(hit, this.stride);
    this.transitionLocal = lo.transitionLocal;
    this.cellLocal = lo.cellLocal;
    this.reach = lo.reach;
    this.cellStart = hit.cellStart;
    const rows = rowMasksOf(hit);
    this.useRows = rows !== null;
    if (rows) {
      this.rowStart = rows.rowStart;
      this.rowMask = rows.rowMask;
      this.rowLocal = lo.rowLocal;
    }
    return this;
  }

  /**
   * Makes the raster's arrays valid for every tile within the table's reach of local tile lt (its block's
   * 3 x 3 neighbourhood). Call before reading them around lt; one stamp test when already done.
   */
  ensureAround(lt: number): void {
    if (lt < 0 || lt >= this.area) return;
    const B = this.block;
    const ly = (lt / this.stride) | 0;
    const bx = ((lt - ly * this.stride) / B) | 0, by = (ly / B) | 0;
    const b = by * this.blocksX + bx;
    if (this.aroundStamp[b] === this.gen) return;
    const bh = Math.ceil(this.rows / B);
    for (let y = by - 1; y <= by + 1; y++) {
      for (let x = bx - 1; x <= bx + 1; x++) {
        if (x < 0 || y < 0 || x >= this.blocksX || y >= bh) continue;
        if (this.blockStamp[y * this.blocksX + x] !== this.gen) this.fillBlock(x, y);
      }
    }
    this.aroundStamp[b] = this.gen;
  }

  /** Makes the whole raster valid (small windows whose geodesic bound needs every open flag). */
  ensureAll(): void {
    const bh = Math.ceil(this.rows / this.block);
    for (let y = 0; y < bh; y++) {
      for (let x = 0; x < this.blocksX; x++) {
        if (this.blockStamp[y * this.blocksX + x] !== this.gen) this.fillBlock(x, y);
      }
    }
  }

  /** Blocks filled in this query (for statistics and tests: the work is the search's, not the window's). */
  get filledBlocks(): number {
    return this.blocksDone;
  }

  /**
   * The grid bound at local tile lt (fixed point, 0 where unknown, Infinity where the goal is out of reach):
   * from the query's lazy bound, else its per-map-tile array.
   */
  boundAt(lt: number): number {
    const [x, y] = this.tileXY(lt);
    const s = this.setup;
    if (s.lazyBound) return s.lazyBound.at(x, y);
    if (!s.gridBound) return 0;
    const gb = s.gridBound[y * s.layer.width + x];
    return gb >= 0 ? gb : 0;
  }

  /**
   * The tile cost shared by every open tile, or null when they differ (-1 when no tile is open: then no
   * transition is taken and any cost serves). Large windows only look at the layer (cached per layer): a
   * window whose own tiles agree on a map whose do not is then costed tile by tile, which is exact too.
   */
  uniformCost(): number | null {
    const s = this.setup;
    const layerCost = layerUniformCost(s.layer);
    if (layerCost > 0) return layerCost;
    if (this.area > EAGER_AREA) return null;
    const { layer, window: w } = s;
    const tileCost = layer.tileCost, road = layer.road;
    let tc = -1;
    for (let y = w.y0; y < w.y1; y++) {
      for (let t = y * layer.width + w.x0, e = y * layer.width + w.x1; t < e; t++) {
        const c = tileCost[t];
        if (c <= 0 || (s.roadsOnly && road[t] !== 1)) continue;
        if (tc < 0) tc = c;
        else if (c !== tc) return null;
      }
    }
    return tc;
  }

  /** Open flag of local tile (lx, ly) straight from the map (closed outside the window). */
  private openFromMap(lx: number, ly: number): number {
    const s = this.setup;
    const x = lx - this.pad + this.x0, y = ly - this.pad + this.y0;
    const w = s.window;
    if (x < w.x0 || y < w.y0 || x >= w.x1 || y >= w.y1) return 0;
    const t = y * s.layer.width + x;
    return s.layer.tileCost[t] > 0 && (!s.roadsOnly || s.layer.road[t] === 1) ? 1 : 0;
  }

  /**
   * Fills block (bx, by): open, node, cost and path-index flags, the free reach (Chebyshev distance to the
   * nearest closed tile, exact up to the padding, which is all a transition test compares it with) and the row
   * bitmasks. Both read a halo of the padding around the block, computed from the map into a scratch grid.
   */
  private fillBlock(bx: number, by: number): void {
    this.blockStamp[by * this.blocksX + bx] = this.gen;
    this.blocksDone++;
    const s = this.setup;
    const B = this.block, W = this.stride, P = this.pad;
    const lx0 = bx * B, ly0 = by * B;
    const lx1 = Math.min(W, lx0 + B), ly1 = Math.min(this.rows, ly0 + B);
    const sx0 = lx0 - P, sy0 = ly0 - P;
    const SW = lx1 - lx0 + 2 * P, SH = ly1 - ly0 + 2 * P;
    if (this.scratchOpen.length < SW * SH) {
      this.scratchOpen = new Uint8Array(SW * SH);
      this.scratchDist = new Uint8Array(SW * SH);
    }
    const so = this.scratchOpen, d = this.scratchDist;
    for (let j = 0; j < SH; j++) {
      for (let i = 0; i < SW; i++) so[j * SW + i] = this.openFromMap(sx0 + i, sy0 + j);
    }
    // Chebyshev distance transform (two exact passes); the scratch edge counts as P away (a bound, see above).
    const cap = Math.min(255, P);
    for (let j = 0; j < SH; j++) {
      for (let i = 0; i < SW; i++) {
        const k = j * SW + i;
        if (so[k] === 0) d[k] = 0;
        else if (i === 0 || j === 0 || i === SW - 1 || j === SH - 1) d[k] = cap;
        else {
          let m = d[k - 1];
          const a = d[k - SW - 1], b = d[k - SW], c = d[k - SW + 1];
          if (a < m) m = a;
          if (b < m) m = b;
          if (c < m) m = c;
          d[k] = m + 1 > 255 ? 255 : m + 1;
        }
      }
    }
    for (let j = SH - 2; j >= 1; j--) {
      for (let i = SW - 2; i >= 1; i--) {
        const k = j * SW + i;
        if (d[k] === 0) continue;
        let m = d[k];
        const e = d[k + 1] + 1, a = d[k + SW - 1] + 1, b = d[k + SW] + 1, c = d[k + SW + 1] + 1;
        if (e < m) m = e;
        if (a < m) m = a;
        if (b < m) m = b;
        if (c < m) m = c;
        d[k] = m;
      }
    }
    const layer = s.layer;
    const R = s.hit.maxReach;
    const mw = s.maskWindow ?? null;
    const top = 1 << (2 * R);
    for (let ly = ly0; ly < ly1; ly++) {
      const j = ly - sy0;
      // Row bits slide along the row: bit q of tile lx is bit q + 1 of tile lx - 1, plus one new cell.
      let bits = -1;
      for (let lx = lx0; lx < lx1; lx++) {
        const i = lx - sx0;
        const k = j * SW + i;
        const lt = ly * W + lx;
        const o = so[k];
        this.open[lt] = o;
        this.freeReach[lt] = d[k] > 0 ? d[k] - 1 : 0;
        const x = lx - P + this.x0, y = ly - P + this.y0;
        const t = y * layer.width + x;
        const inside = o === 1 ||
          (x >= s.window.x0 && y >= s.window.y0 && x < s.window.x1 && y < s.window.y1);
        this.cost[lt] = inside ? layer.tileCost[t] : 0;
        // The mask's index of the tile (-1 off a mask window).
        let m = t;
        if (mw !== null) {
          m = x >= mw.x0 && y >= mw.y0 && x < mw.x1 && y < mw.y1
            ? (y - mw.y0) * (mw.x1 - mw.x0) + x - mw.x0
            : -1;
        }
        let node = o === 1 && (!s.nodeMask || (m >= 0 && s.nodeMask[m] === 1)) ? 1 : 0;
        if (node === 1 && s.gridBound && s.gridBound[t] === Infinity) node = 0;
        this.nodeOk[lt] = node;
        if (this.pathIndex) this.pathIndex[lt] = inside && m >= 0 ? s.pathIndex![m] : -1;
        if (this.useRows) {
          if (bits < 0) {
            bits = 0;
            for (let q = 0; q <= 2 * R; q++) {
              const xx = lx + q - R;
              if (xx < 0 || xx >= W || so[k + q - R] === 0) bits |= 1 << q;
            }
          } else {
            const xx = lx + R;
            bits = (bits >>> 1) | (xx >= W || so[k + R] === 0 ? top : 0);
          }
          this.rowBits[lt] = bits;
        }
      }
    }
  }

  /** True when every cell of transition t from local tile lt is open. */
  transitionFree(lt: number, t: number): boolean {
    if (this.useRows) {
      for (let k = this.rowStart[t]; k < this.rowStart[t + 1]; k++) {
        if ((this.rowBits[lt + this.rowLocal[k]] & this.rowMask[k]) !== 0) return false;
      }
      return true;
    }
    const cellStart = this.cellStart;
    for (let c = cellStart[t]; c < cellStart[t + 1]; c++) {
      if (this.open[lt + this.cellLocal[c]] === 0) return false;
    }
    return true;
  }

  /** Local (padded window) index of map tile (x, y). */
  local(x: number, y: number): number {
    return (y - this.y0 + this.pad) * this.stride + (x - this.x0 + this.pad);
  }

  /** Map tile (x, y) of a local index. */
  tileXY(lt: number): [number, number] {
    const ly = (lt / this.stride) | 0;
    const lx = lt - ly * this.stride;
    return [lx - this.pad + this.x0, ly - this.pad + this.y0];
  }

  /** Encodes a node state. */
  stateOf(x: number, y: number, heading: number, reverse: boolean): number {
    return ((this.local(x, y) * this.headings) + heading) * this.directions +
      (reverse && this.directions === 2 ? 1 : 0);
  }

  /** Decodes a node state into map tile x, y, heading index and last-motion-reverse flag. */
  decode(state: number): { x: number; y: number; heading: number; reverse: boolean } {
    const d = this.directions === 2 ? state & 1 : 0;
    const s = this.directions === 2 ? state >>> 1 : state;
    const h = s % this.headings;
    const [x, y] = this.tileXY((s - h) / this.headings);
    return { x, y, heading: h, reverse: d === 1 };
  }

  /** The pose of a node state: its tile center and table heading. */
  nodePose(state: number): Pose {
    const d = this.decode(state);
    return { x: d.x + 0.5, y: d.y + 0.5, heading: headingAngle(d.heading, this.headings) };
  }

  /**
   * True if the curve's footprint overlaps no blocked tile (exact sweep of src/geometry/sweep.ts, early exit,
   * no allocation); for road-confined searches, no tile outside the window's road tiles either.
   */
  curveIsOpen(segs: readonly Segment[], fp: Footprint): boolean {
    const L = this.exactLayer;
    for (let i = 0; i < segs.length; i++) if (segmentHitsBlocked(L, segs[i], fp)) return false;
    return true;
  }

  /** True if the footprint at the pose overlaps a blocked tile (or, for road searches, a non-road one). */
  poseIsBlocked(p: Pose, fp: Footprint): boolean {
    return footprintHitsBlocked(this.exactLayer, p.x, p.y, p.heading, fp);
  }

  /** A layer view whose open tiles are the window's passable road tiles (reuses one map-sized mask). */
  private roadLayer(layer: PassLayer, w: TileRect): PassLayer {
    const n = layer.width * layer.height;
    if (this.roadOpen.length !== n) {
      this.roadOpen = new Uint8Array(n);
      this.roadWindow = null;
    }
    const mask = this.roadOpen;
    const old = this.roadWindow;
    if (old) {
      for (let y = old.y0; y < old.y1; y++) {
        mask.fill(0, y * layer.width + old.x0, y * layer.width + old.x1);
      }
    }
    for (let y = w.y0; y < w.y1; y++) {
      for (let x = w.x0; x < w.x1; x++) {
        const t = y * layer.width + x;
        mask[t] = layer.tileCost[t] > 0 && layer.road[t] === 1 ? 1 : 0;
      }
    }
    this.roadWindow = { ...w };
    // The sweep reads width, height, the zero test of tileCost and clearance, which certifies stretches free
    // without testing their cells: the map's clearance knows nothing of roads, so the view has none (all zero).
    if (this.roadClearance.length !== n) this.roadClearance = new Uint8Array(n);
    return { ...layer, tileCost: mask as unknown as Float32Array, clearanceCode: this.roadClearance };
  }
}
