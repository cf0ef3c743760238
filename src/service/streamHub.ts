/**
 * All streams of a server: opens sessions up to a limit, tells them about map patches and deletions, and ends
 * them on shutdown.
 *
 * @module
 */
import type { PlanService } from "./planService.ts";
import type { MapStore } from "./mapStore.ts";
import { ServiceError } from "./errors.ts";
import { DEFAULT_STALL_MS, type Emit, type End, PathStream } from "./pathStream.ts";

/** Stream limits. */
export interface StreamOptions {
  /** Max concurrent streams on the server. */
  maxStreams: number;
  /** How long a stream whose client reads nothing (send buffer full) lives on (default DEFAULT_STALL_MS). */
  stallMs?: number;
}

/** All streams of a server. */
export class StreamHub {
  readonly #plans: PlanService;
  readonly #store: MapStore;
  readonly #opts: StreamOptions;
  readonly #streams = new Set<PathStream>();
  readonly #unsub: (() => void)[] = [];
  readonly #updateListeners = new Set<(kind: string) => void>();

  /** Creates the hub and subscribes to map patches and deletions. */
  constructor(plans: PlanService, store: MapStore, opts: StreamOptions) {
    this.#plans = plans;
    this.#store = store;
    this.#opts = opts;
    this.#unsub.push(store.onPatch((e) => {
      for (const s of this.#streams) s.onPatch(e);
    }));
    this.#unsub.push(store.onDelete((id) => {
      for (const s of this.#streams) s.onMapDeleted(id);
    }));
  }

  /** Streams open now. */
  get size(): number {
    return this.#streams.size;
  }

  /** Opens a stream; `emit` sends an update, `end` closes it (with an error or cleanly). */
  open(emit: Emit, end: End): PathStream {
    if (this.#streams.size >= this.#opts.maxStreams) {
      throw new ServiceError(
        "RESOURCE_EXHAUSTED",
        `streams: ${this.#streams.size} open (limit ${this.#opts.maxStreams})`,
      );
    }
    const listeners = this.#updateListeners;
    const sent: Emit = listeners.size === 0 ? emit : (u) => {
      for (const cb of listeners) cb(u.kind);
      return emit(u);
    };
    const s = new PathStream(this.#plans, this.#store, sent, (err) => {
      this.#streams.delete(s);
      end(err);
    }, this.#opts.stallMs ?? DEFAULT_STALL_MS);
    this.#streams.add(s);
    return s;
  }

  /** Tells `cb` the kind of every update streams opened from now on send (metrics count replans with it). */
  onUpdate(cb: (kind: string) => void): void {
    this.#updateListeners.add(cb);
  }

  /**
   * Ends every stream with a final "shutdown" status, then the call's status UNAVAILABLE: the client's cue to
   * open the stream again elsewhere (through the balancer, another replica takes it).
   */
  shutdown(): void {
    const message = "server is shutting down: open the stream again (another replica will take it)";
    const err = new ServiceError("UNAVAILABLE", message);
    for (const s of [...this.#streams]) s.finish("shutdown", message, err);
    for (const u of this.#unsub) u();
  }
}
