/**
 * Keeps a replica's map store in step with a shared backend (Redis) that other replicas write too: the latest
 * version of a map is asked of the store before it is used (if the store answers within 250 ms, else the
 * cached one serves), other replicas' news (a new version, a deletion) is applied and told to the store's
 * listeners (streams replan) as a local change would be, and after a reconnection every map's state is
 * compared and what was missed is applied. Each map's changes carry the store's change counter, so stale or
 * repeated news is skipped.
 *
 * @module
 */
import type { TileRect } from "../maps/layer.ts";
import { mapVersion } from "../maps/version.ts";
import { ServiceError } from "./errors.ts";
import type { MapVersion, VersionCache } from "./mapCache.ts";
import type { MapBackend, RemoteChange, RemotePointer, StoredMap } from "./mapBackend.ts";
import { displayId } from "./mapKeys.ts";
import type { PatchEvent } from "./mapPatch.ts";

/** What the sync may do to the map store it serves. */
export interface SyncHost {
  /** The shared backend. */
  backend: MapBackend;
  /** The store's cache. */
  cache: VersionCache;
  /** Runs `fn` in map `id`'s write queue. */
  serial<T>(id: string, fn: () => Promise<T>): Promise<T>;
  /** Makes `version` the latest of `id` (loaded when asked for). */
  pointTo(id: string, version: string): void;
  /** Whether `id`'s latest version lives in this process only (built-in or ephemeral). */
  isLocal(id: string): boolean;
  /** Tells the store's patch listeners. */
  patched(e: PatchEvent): void;
  /** Forgets a deleted map and tells the store's delete listeners. */
  deleted(id: string): void;
  /** Adds a version read from the backend (not as the latest). */
  loadStored(stored: StoredMap): MapVersion;
  /** Adds a version read from the backend as a patch of `from` (layers updated only in `rects`). */
  patchedVersion(from: MapVersion, stored: StoredMap, rects: TileRect[]): MapVersion;
  /** Logs. */
  log?: (fields: Record<string, unknown>, msg: string) => void;
}

/** The sync of one replica's store with a shared backend. */
export class SharedSync {
  readonly #host: SyncHost;
  /** Per map: the change counter of the latest version this process points to. */
  readonly #latestSeq = new Map<string, number>();
  /** Per map: the change counter of the newest change listeners were told about. */
  readonly #toldSeq = new Map<string, number>();

  /** Syncs the store behind `host`. */
  constructor(host: SyncHost) {
    this.#host = host;
  }

  /** Records a change this process made or found at start (its listeners need no news of it). */
  committed(id: string, seq: number): void {
    this.#pointedAt(id, seq);
    this.#told(id, seq);
  }

  /** Starts applying other processes' news and catching up after each (re)connection. */
  listen(): void {
    this.#host.backend.listen(
      (c) => void this.#host.serial(c.id, () => this.#applyRemote(c)).catch((e) => this.#remoteFailed(c, e)),
      (all) => this.#resync(all),
    );
  }

  /**
   * Brings a map's latest version in line with a shared store's (in the map's write queue when it differs, so
   * it never races a write). A store that does not answer leaves the cached latest version in use: false then.
   */
  async catchUp(id: string): Promise<boolean> {
    const p = await this.#pointer(id);
    if (p === null) return false;
    if (p.seq <= (this.#latestSeq.get(id) ?? 0)) return true;
    // The second read (inside the queue) may time out under load: then the store did not answer, and "no such
    // map" would be a guess (a reopened stream once got NOT_FOUND for a map another replica had just stored).
    let answered = true;
    await this.#host.serial(id, async () => {
      answered = await this.catchUpNow(id, false);
    });
    return answered;
  }

  /**
   * {@link catchUp} inside the map's write queue; `strict` throws if the store does not answer, else it returns
   * false then (true: the store answered, and what it holds is applied).
   */
  async catchUpNow(id: string, strict: boolean): Promise<boolean> {
    const p = strict
      ? await this.#host.backend.pointer(id).catch((e) => this.#unavailable(id, e))
      : await this.#pointer(id);
    if (p === null) return false;
    if (p.seq <= (this.#latestSeq.get(id) ?? 0)) return true;
    // Listeners hear of it from the news (or the resync), which this does not count as told.
    if (p.version === null) await this.#applyRemote(p);
    else {
      this.#host.pointTo(id, p.version);
      this.#pointedAt(id, p.seq);
    }
    return true;
  }

  /** A map's state in a shared store, or null if the store does not answer within 250 ms. */
  async #pointer(id: string): Promise<RemotePointer | null> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<null>((r) => (timer = setTimeout(() => r(null), 250)));
    try {
      return await Promise.race([this.#host.backend.pointer(id).catch(() => null), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  #unavailable(id: string, e: unknown): never {
    const why = String(e instanceof Error ? e.message : e).slice(0, 200);
    throw new ServiceError(
      "UNAVAILABLE",
      `${this.#host.backend.name} is unavailable (${why}); map ${
        JSON.stringify(displayId(id))
      } was not changed`,
    );
  }

  /**
   * Applies another process's change (in the map's write queue): a new latest version or a deletion, told to
   * the listeners as a local one would be. Stale news (an older change counter) is skipped. A new version is
   * loaded now only if this process holds a version of the map (its streams may need it), else when asked.
   */
  async #applyRemote(c: RemoteChange): Promise<void> {
    const { id } = c;
    if (c.seq <= (this.#toldSeq.get(id) ?? 0)) return;
    const current = this.#host.cache.latest(id);
    if (c.version === null) {
      if (c.seq > (this.#latestSeq.get(id) ?? 0)) this.#pointedAt(id, c.seq);
      this.#told(id, c.seq);
      if (current === undefined) return;
      this.#host.deleted(id);
      return;
    }
    const newer = c.seq >= (this.#latestSeq.get(id) ?? 0);
    const from = (c.from ? this.#host.cache.peek(id, c.from) : undefined) ??
      (current !== undefined ? this.#host.cache.peek(id, current) : undefined);
    if (newer) {
      this.#host.pointTo(id, c.version);
      this.#pointedAt(id, c.seq);
    }
    this.#told(id, c.seq);
    if (!from || c.put || !newer) return;
    const to = await this.#remoteVersion(from, c);
    if (!to) return;
    const full = { x0: 0, y0: 0, x1: to.map.width, y1: to.map.height };
    const event: PatchEvent = {
      id,
      from,
      to,
      rects: c.from === from.version && c.rects ? c.rects : [full],
      updateMicros: 0,
    };
    this.#host.patched(event);
  }

  /** The version a remote patch made: cached, or read and built from the version it patched where it can. */
  async #remoteVersion(from: MapVersion, c: RemoteChange): Promise<MapVersion | null> {
    const cached = this.#host.cache.peek(c.id, c.version!);
    if (cached) return cached;
    const stored = await this.#host.backend.read(c.id, c.version!);
    if (!stored) return null;
    const { map } = stored;
    const version = mapVersion(map.tiles, map.width, map.height, map.terrain);
    if (version !== c.version) return null;
    const sameShape = c.from === from.version && c.rects !== undefined && from.map.width === map.width &&
      from.map.height === map.height;
    if (!sameShape) return this.#host.loadStored(stored);
    return this.#host.patchedVersion(from, stored, c.rects!);
  }

  /** Catches up after a (re)connection to a shared store: every map whose state differs is a remote change. */
  #resync(all: RemotePointer[]): void {
    const known = new Set(all.map((p) => p.id));
    const changes: RemoteChange[] = all.filter((p) => p.seq > (this.#toldSeq.get(p.id) ?? 0));
    for (const c of changes) {
      void this.#host.serial(c.id, () => this.#applyRemote(c)).catch((e) => this.#remoteFailed(c, e));
    }
    // Maps this process lists that the store did not hold when it was read: deleted while news was missed, or
    // stored since (their news may have come before this snapshot's answer). Asked again in the map's queue.
    const missing = this.#host.cache.ids().filter((id) => !known.has(id) && !this.#host.isLocal(id));
    for (const id of missing) {
      void this.#host.serial(id, () => this.#forgetIfGone(id)).catch((e) =>
        this.#remoteFailed({ id, version: null, seq: 0 }, e)
      );
    }
    if (changes.length + missing.length > 0) {
      this.#host.log?.({ maps: changes.length + missing.length }, "caught up with the map store");
    }
  }

  /**
   * A map the store's snapshot did not hold: applied as the store holds it now; forgotten only if the store has
   * no record of it at all (a deletion keeps its counter), kept if the store does not answer.
   */
  async #forgetIfGone(id: string): Promise<void> {
    const p = await this.#host.backend.pointer(id).catch(() => null);
    if (p === null) return;
    if (p.version !== null || p.seq > 0) return await this.#applyRemote(p);
    await this.#applyRemote({ id, version: null, seq: (this.#toldSeq.get(id) ?? 0) + 1 });
  }

  #remoteFailed(c: RemoteChange, e: unknown): void {
    this.#host.log?.(
      { map: c.id, version: c.version, err: String(e) },
      "could not apply a remote map change",
    );
  }

  /** Records that the latest version this process points to is the store's change `seq` (or newer). */
  #pointedAt(id: string, seq: number): void {
    if (seq > (this.#latestSeq.get(id) ?? 0)) this.#latestSeq.set(id, seq);
  }

  /** Records that listeners know of change `seq` of `id`. */
  #told(id: string, seq: number): void {
    if (seq > (this.#toldSeq.get(id) ?? 0)) this.#toldSeq.set(id, seq);
  }
}
