/**
 * The admissible heuristic of the directional search (fixed point): max(curve bound, grid bound, geodesic
 * bound), plus a reverse extra for states whose last motion was reverse. See {@link DirectionalHeuristic.ofNode}.
 *
 * @module
 */
import { angleDistance } from "../geometry/angle.ts";
import { dubinsLengthCoords } from "../geometry/dubins.ts";
import { reedsSheppLengthCoords } from "../geometry/reedsShepp.ts";
import type { Footprint } from "../units/footprint.ts";
import { COST_SCALE } from "./astar.ts";
import { headingAngle, nearestHeading } from "./directionTable.ts";
import type { WindowRaster } from "./directionalRaster.ts";
import type { DirectionalSetup } from "./directionalSetup.ts";
import { GeodesicBound } from "./geodesicBound.ts";
import { curveLowerBound, type HeuristicTable } from "./heuristicTable.ts";

/** Windows (padded local tiles) up to this size get the geodesic bound (its setup scans the whole window). */
export const GEODESIC_MAX_AREA = 128 * 128;

/** Goal slack per goal place in its tile and curve family (see prepareGoal). */
const slackCache = new Map<string, number>();

/** The radius of the largest disc centered on the pose inside the footprint (a zero side takes 2 * radius). */
function inscribedRadius(f: Footprint): number {
  if (f.width === 0 && f.length === 0) return f.radius;
  const w = f.width > 0 ? f.width : 2 * f.radius;
  const l = f.length > 0 ? f.length : 2 * f.radius;
  return Math.max(0, Math.min(w, l) / 2);
}

/** The heuristic of one query over a window raster (configure per query, reuse across queries). */
export class DirectionalHeuristic {
  private setup!: DirectionalSetup;
  private heur!: HeuristicTable;
  private headings = 8;
  private directions = 1;
  private pad = 0;
  private stride = 0;
  private x0 = 0;
  private y0 = 0;
  /** The query's raster (its grid bound per local tile). */
  private raster!: WindowRaster;
  /** False when the window is too large for the geodesic bound's whole-window setup. */
  private geoOn = false;
  private minCostScale = COST_SCALE;
  /** The geodesic length bound (see src/search/geodesicBound.ts). */
  private geo = new GeodesicBound();
  /** Per local tile: the heading-independent part of the heuristic (fixed point); -1 until evaluated. */
  private tileH = new Float64Array(0);
  /** Per local tile: 1 when the heuristic table applies there (near the goal), set with {@link tileH}. */
  private tileNear = new Uint8Array(0);
  /** Per local tile: the generation (query) in which {@link tileH} was evaluated (no clearing per query). */
  private tileStamp = new Uint32Array(0);
  private gen = 0;
  /** reversePenalty - 1 (see {@link ofNode}). */
  private reverseExtra = 0;
  /** The cusp penalty in fixed point, floored. */
  private cuspFixed = 0;
  // Goal bookkeeping.
  private goalTileX = 0;
  private goalTileY = 0;
  private goalTileHeading = -1;
  private goalSlack = 0;
  private goalNodes: number[] = [];
  private goalHeadingMask = 0;
  private goalNodeCap = false;

  /** Lets go of the per-tile caches above `keepBytes` between queries (they regrow); returns the bytes. */
  release(keepBytes: number): number {
    const bytes = 13 * this.tileH.length;
    if (bytes <= keepBytes) return 0;
    this.tileH = new Float64Array(0);
    this.tileNear = new Uint8Array(0);
    this.tileStamp = new Uint32Array(0);
    this.gen = 0;
    return bytes;
  }

  /** Prepares a query over a configured raster. */
  configure(setup: DirectionalSetup, raster: WindowRaster): this {
    this.setup = setup;
    this.heur = setup.heur;
    this.headings = raster.headings;
    this.directions = raster.directions;
    this.pad = raster.pad;
    this.stride = raster.stride;
    this.x0 = raster.x0;
    this.y0 = raster.y0;
    this.raster = raster;
    this.minCostScale = setup.layer.minCost * COST_SCALE;
    this.prepareGoal();
    this.prepareGeodesic(raster);
    return this;
  }

  /** The estimate from the exact start pose: the straight distance to the goal less the tolerance. */
  ofStart(): number {
    const g = this.setup.goal;
    const p = this.setup.start;
    return Math.max(0, Math.floor((Math.hypot(p.x - g.x, p.y - g.y) - g.tolerance) * this.minCostScale));
  }

  /**
   * Admissible estimate (fixed point) of the cost from a node state to the goal: the cost of any path is at
   * least its length times layer.minCost (penalties only add, reversePenalty >= 1), and its length is at least:
   * - the Euclidean distance to the goal point minus the tolerance;
   * - the smaller of: the table bound to the nearest accepted goal node (a tile center within tolerance, a
   *   heading within tolerance), and the table bound to the goal tile center minus the per-query slack
   *   d(goal pose -> goal tile center pose) (triangle inequality of the curve distance), which covers the
   *   exact goal reached by analytic expansion;
   * - the obstacle-aware grid bound given by the caller (src/planning/directional.ts);
   * - the geodesic bound (src/search/geodesicBound.ts).
   *
   * From a state whose last motion was reverse, a path either reverses all the way (its cost is at least
   * reversePenalty times the bound) or changes direction at least once (one cusp penalty more, charged to the
   * first transition or analytic curve that starts forward); the smaller of the two extras is added.
   *
   * All terms but the table bound depend on the tile only and are cached per tile; beyond the table's radius
   * (from the goal tile and every goal node) the table bound is the straight distance, cached likewise.
   */
  ofNode(state: number): number {
    const D = this.directions;
    const s = D === 2 ? state >>> 1 : state;
    const h = s % this.headings;
    const lt = (s - h) / this.headings;
    let v = this.tileStamp[lt] === this.gen ? this.tileH[lt] : this.tileHeuristic(lt);
    if (this.tileNear[lt] === 1) {
      const ly = (lt / this.stride) | 0;
      const x = lt - ly * this.stride - this.pad + this.x0;
      const y = ly - this.pad + this.y0;
      const curve = this.curveBound(x, y, h);
      const hc = curve > 0 ? Math.floor(curve * this.minCostScale) : 0;
      if (hc > v) v = hc;
    }
    if (D === 2 && (state & 1) === 1) {
      const extra = Math.floor(v * this.reverseExtra);
      v += extra < this.cuspFixed ? extra : this.cuspFixed;
    }
    return v;
  }

  /**
   * The length bound from the table (see {@link ofNode}) for tile (x, y) and heading h, before the max with
   * the straight distance.
   */
  private curveBound(x: number, y: number, h: number): number {
    const g = this.setup.goal;
    const heur = this.heur;
    let curve = curveLowerBound(heur, this.goalTileX - x, this.goalTileY - y, h, this.goalTileHeading) -
      this.goalSlack;
    if (this.goalNodeCap) {
      curve = Math.min(curve, Math.hypot(x + 0.5 - g.x, y + 0.5 - g.y) - g.tolerance);
    } else {
      const nodes = this.goalNodes;
      const mask = this.goalHeadingMask;
      const all = g.heading === undefined;
      for (let i = 0; i < nodes.length && curve > 0; i += 2) {
        const dx = nodes[i] - x, dy = nodes[i + 1] - y;
        if (all) curve = Math.min(curve, curveLowerBound(heur, dx, dy, h, -1));
        else {
          for (let q = 0; q < this.headings; q++) {
            if ((mask >> q) & 1) curve = Math.min(curve, curveLowerBound(heur, dx, dy, h, q));
          }
        }
      }
    }
    return curve;
  }

  /** Fills the per-tile part of the heuristic of local tile lt (and whether the table applies there). */
  private tileHeuristic(lt: number): number {
    const g = this.setup.goal;
    const ly = (lt / this.stride) | 0;
    const lx = lt - ly * this.stride;
    const x = lx - this.pad + this.x0;
    const y = ly - this.pad + this.y0;
    const R = this.heur.radius;
    let near = Math.abs(this.goalTileX - x) <= R && Math.abs(this.goalTileY - y) <= R;
    const nodes = this.goalNodes;
    for (let i = 0; i < nodes.length && !near; i += 2) {
      near = Math.abs(nodes[i] - x) <= R && Math.abs(nodes[i + 1] - y) <= R;
    }
    const euclid = Math.hypot(x + 0.5 - g.x, y + 0.5 - g.y) - g.tolerance;
    // Beyond the table every lookup is the straight distance, whatever the heading.
    const length = near ? euclid : Math.max(euclid, this.curveBound(x, y, 0));
    let v = length > 0 ? Math.floor(length * this.minCostScale) : 0;
    const hb = this.raster.boundAt(lt);
    if (hb > v) v = hb;
    // The goal is out of reach from here inside the window: no node state on this tile from now on.
    if (hb === Infinity) this.raster.nodeOk[lt] = 0;
    const d = this.geoOn ? this.geo.at(lx, ly) : 0;
    // Unreachable per the geodesic: left to the grid bound (which marks it Infinity when it agrees). The bound
    // can be exact (a straight run to a goal node), and each edge cost is rounded to an integer, so it gives up
    // half a unit per edge: at most d + 2 edges (transitions are at least one tile long, plus the analytic one).
    const hg = d === Infinity
      ? 0
      : Math.max(0, Math.floor(d * this.minCostScale * (1 - 1e-12) - 0.5 * d - 1));
    if (hg > v) v = hg;
    this.tileNear[lt] = near ? 1 : 0;
    this.tileH[lt] = v;
    this.tileStamp[lt] = this.gen;
    return v;
  }

  /** The goal tile, its heading and slack (triangle inequality), and the accepted goal nodes. */
  private prepareGoal(): void {
    const s = this.setup;
    const g = s.goal;
    const H = this.headings;
    this.goalTileX = Math.floor(g.x);
    this.goalTileY = Math.floor(g.y);
    const cx = this.goalTileX + 0.5, cy = this.goalTileY + 0.5;
    const len = s.reverse ? reedsSheppLengthCoords : dubinsLengthCoords;
    const r = s.turningRadius;
    // Triangle inequality: d(p -> goal) >= d(p -> (c, q)) - d(goal -> (c, q)) for the goal tile center c.
    if (g.heading !== undefined) {
      this.goalTileHeading = nearestHeading(g.heading, H);
      this.goalSlack = len(g.x, g.y, g.heading, cx, cy, headingAngle(this.goalTileHeading, H), r);
    } else {
      // Any final heading: bound by the table's "any heading" column; the slack is the worst heading. It only
      // depends on the goal's place inside its tile, so it is computed once per place and curve family.
      this.goalTileHeading = -1;
      const key = `${g.x - cx}|${g.y - cy}|${r}|${s.reverse}|${H}`;
      const cached = slackCache.get(key);
      if (cached !== undefined) this.goalSlack = cached;
      else {
        let worst = 0;
        for (let i = 0; i < 256; i++) {
          const a = (2 * Math.PI * i) / 256;
          const q = nearestHeading(a, H);
          worst = Math.max(worst, len(g.x, g.y, a, cx, cy, headingAngle(q, H), r));
        }
        // Margin for the sampling of the worst heading.
        this.goalSlack = worst + (2 * Math.PI / 256) * r;
        if (slackCache.size > 4096) slackCache.clear();
        slackCache.set(key, this.goalSlack);
      }
    }
    // Goal nodes: tile centers within tolerance, headings within tolerance.
    this.goalNodes = [];
    this.goalHeadingMask = 0;
    if (g.heading === undefined) this.goalHeadingMask = (1 << H) - 1;
    else {
      for (let h = 0; h < H; h++) {
        if (angleDistance(headingAngle(h, H), g.heading) <= g.headingTolerance) {
          this.goalHeadingMask |= 1 << h;
        }
      }
    }
    const reach = Math.ceil(g.tolerance) + 1;
    for (let y = this.goalTileY - reach; y <= this.goalTileY + reach; y++) {
      for (let x = this.goalTileX - reach; x <= this.goalTileX + reach; x++) {
        if (Math.hypot(x + 0.5 - g.x, y + 0.5 - g.y) <= g.tolerance) this.goalNodes.push(x, y);
      }
    }
    this.goalNodeCap = this.goalNodes.length > 2 * 9;
    if (this.goalHeadingMask === 0) this.goalNodes = [];
  }

  /**
   * Configures the geodesic bound: the window's open tiles; outside the window every map tile counts as open
   * (not for road searches, whose sweeps see only the window's roads), so the bound holds for any curve the
   * search may take; goal ends are the goal point and the goal-node tile centers.
   */
  private prepareGeodesic(raster: WindowRaster): void {
    const area = raster.area;
    if (this.tileH.length < area) {
      this.tileH = new Float64Array(area);
      this.tileNear = new Uint8Array(area);
      this.tileStamp = new Uint32Array(area);
      this.gen = 0;
    }
    if (this.gen >= 0xfffffffe) {
      this.tileStamp.fill(0);
      this.gen = 0;
    }
    this.gen++;
    const s = this.setup;
    this.reverseExtra = Math.max(0, s.reversePenalty - 1);
    this.cuspFixed = Math.max(0, Math.floor(s.cuspPenalty * COST_SCALE));
    const pad = this.pad;
    const ox = this.x0 - pad, oy = this.y0 - pad;
    const ends: number[] = [s.goal.x - ox, s.goal.y - oy];
    for (let i = 0; i < this.goalNodes.length; i += 2) {
      ends.push(this.goalNodes[i] + 0.5 - ox, this.goalNodes[i + 1] + 0.5 - oy);
    }
    // The geodesic bound's setup reads the whole window: small windows only, so a query's cost follows its
    // work (large windows rely on the lazy grid bound).
    this.geoOn = area <= GEODESIC_MAX_AREA && s.geodesic !== false;
    if (!this.geoOn) return;
    raster.ensureAll();
    const L = s.layer;
    const roads = s.roadsOnly;
    this.geo.configure(
      raster.open,
      this.stride,
      raster.rows,
      pad,
      (lx, ly) => {
        const x = lx + ox, y = ly + oy;
        return !roads && x >= 0 && y >= 0 && x < L.width && y < L.height;
      },
      ends,
      inscribedRadius(s.footprint),
    );
  }
}
