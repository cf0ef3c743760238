/**
 * Open streams (and fleets) as the live viewer sees them: each stream's current path (partial updates spliced on as a client
 * splices them), its map, unit footprint and last status, and listeners told of every change. The gRPC Stream
 * handler reports to it only when the HTTP viewer is on (Arcpath.watch set), so streams cost nothing extra
 * otherwise. Listeners see only the streams of their tenant.
 *
 * @module
 */
import { segmentPiece } from "../geometry/segment.ts";
import type { Segment } from "../geometry/types.ts";
import { type PathDrawing, pathDrawing } from "../motion/pathDrawing.ts";
import { displayId, tenantOf } from "../service/mapKeys.ts";
import type { StreamUpdate } from "../service/pathStream.ts";
import type { Footprint } from "../units/footprint.ts";

/** What a listener is told about one stream. */
export type WatchEvent =
  | {
    type: "stream";
    id: number;
    map: string;
    sequence: number;
    kind: string;
    status: string;
    drawing: PathDrawing;
  }
  | {
    type: "fleet";
    id: number;
    map: string;
    units: { unit: string; status: string; drawing: PathDrawing }[];
  }
  | { type: "closed"; id: number };

/** What the watch reads of a fleet trajectory (service/fleetSession.ts's UnitTrajectoryOut). */
export interface WatchedTrajectory {
  unitId: string;
  segments: Segment[];
  status: string;
}

/** Fleet trajectories carry no footprint: units are drawn with this small disc. */
const FLEET_FOOTPRINT: Footprint = { radius: 0.25, width: 0, length: 0 };

interface WatchedFleet {
  tenant: string;
  map: string;
  units: Map<string, WatchedTrajectory>;
}

interface Watched {
  tenant: string;
  map: string;
  segments: Segment[];
  footprint: Footprint;
  /** The last update's sequence, kind and status (sequence 0: none yet). */
  sequence: number;
  kind: string;
  status: string;
}

/** The open streams and who watches them. */
export class StreamWatch {
  readonly #streams = new Map<number, Watched>();
  readonly #fleets = new Map<number, WatchedFleet>();
  readonly #listeners = new Set<{ tenant: string; fn: (ev: WatchEvent) => void }>();
  #next = 1;

  /** A stream opened for a tenant: its watch id. */
  opened(tenant: string): number {
    const id = this.#next++;
    this.#streams.set(id, {
      tenant,
      map: "",
      segments: [],
      footprint: { radius: 0.5, width: 0, length: 0 },
      sequence: 0,
      kind: "",
      status: "",
    });
    return id;
  }

  /** An update the stream sent: splices its path (replace_from_segment / distance) and tells the listeners. */
  updated(id: number, u: StreamUpdate): void {
    const w = this.#streams.get(id);
    if (!w) return;
    const r = u.result;
    if (r) {
      w.map = displayId(r.mapVersion.id);
      w.footprint = r.unit.footprint;
      const segs = r.outcome.segments;
      if (u.replaceFromSegment < 0) w.segments = [...segs];
      else {
        const kept = w.segments.slice(0, u.replaceFromSegment);
        const cut = w.segments[u.replaceFromSegment];
        if (cut && u.replaceFromDistance > 0) kept.push(segmentPiece(cut, 0, u.replaceFromDistance));
        w.segments = [...kept, ...segs];
      }
    }
    w.sequence = u.sequence;
    w.kind = u.kind;
    w.status = r ? r.outcome.status : u.status;
    // The drawing is made only for a watching page (a new page gets it at subscribe).
    if ([...this.#listeners].some((l) => l.tenant === w.tenant)) this.#tell(w.tenant, this.#event(id, w));
  }

  /** What a page is sent about a stream. */
  #event(id: number, w: Watched): WatchEvent {
    return {
      type: "stream",
      id,
      map: w.map,
      sequence: w.sequence,
      kind: w.kind,
      status: w.status,
      drawing: pathDrawing(w.segments, w.footprint),
    };
  }

  /** A Fleet opened on the map of store key `mapKey`: its watch id. */
  fleetOpened(mapKey: string): number {
    const id = this.#next++;
    this.#fleets.set(id, { tenant: tenantOf(mapKey), map: displayId(mapKey), units: new Map() });
    return id;
  }

  /** A fleet update: the trajectories that changed replace those units' (a removed unit is dropped). */
  fleetUpdated(id: number, trajectories: readonly WatchedTrajectory[]): void {
    const f = this.#fleets.get(id);
    if (!f || trajectories.length === 0) return;
    for (const t of trajectories) {
      if (t.status === "removed") f.units.delete(t.unitId);
      else f.units.set(t.unitId, t);
    }
    if ([...this.#listeners].some((l) => l.tenant === f.tenant)) {
      this.#tell(f.tenant, this.#fleetEvent(id, f));
    }
  }

  #fleetEvent(id: number, f: WatchedFleet): WatchEvent {
    const units = [...f.units.values()].map((t) => ({
      unit: t.unitId,
      status: t.status,
      drawing: pathDrawing(t.segments, FLEET_FOOTPRINT, { maxFootprints: 0 }),
    }));
    return { type: "fleet", id, map: f.map, units };
  }

  /** The stream or fleet ended. */
  closed(id: number): void {
    const w = this.#streams.get(id) ?? this.#fleets.get(id);
    if (!w) return;
    this.#streams.delete(id);
    this.#fleets.delete(id);
    this.#tell(w.tenant, { type: "closed", id });
  }

  /** Number of open streams and fleets watched. */
  get size(): number {
    return this.#streams.size + this.#fleets.size;
  }

  /** Listens to a tenant's streams: the current state of each at once, then every change. Returns unsubscribe. */
  subscribe(tenant: string, fn: (ev: WatchEvent) => void): () => void {
    for (const [id, w] of this.#streams) if (w.tenant === tenant && w.sequence > 0) fn(this.#event(id, w));
    for (const [id, f] of this.#fleets) {
      if (f.tenant === tenant && f.units.size > 0) fn(this.#fleetEvent(id, f));
    }
    const l = { tenant, fn };
    this.#listeners.add(l);
    return () => this.#listeners.delete(l);
  }

  #tell(tenant: string, ev: WatchEvent): void {
    for (const l of this.#listeners) if (l.tenant === tenant) l.fn(ev);
  }
}
