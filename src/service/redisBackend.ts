/**
 * The shared map store on Redis (`--store redis://HOST:PORT[/DB]`): many arcpath replicas, one truth.
 *
 * - Versions are immutable, content-addressed blobs `arcpath:v:<key>:<version>` (the encoding of local files).
 *   A blob is written first (`SET NX`, with a day's expiry until it is committed).
 * - The latest version of each map is a field of the hash `arcpath:latest`, changed only by one Lua script
 *   that compares it to the version the writer started from and sets it (compare-and-set), bumps the map's
 *   change counter (`arcpath:seq`, never reset, so news can be ordered and stale news skipped), lets the
 *   replaced blob expire after an hour (requests naming it still find it meanwhile) and publishes the change
 *   on `arcpath:changes`, all atomically.
 * - Replicas subscribe to `arcpath:changes`; after every (re)connection they read the whole `arcpath:latest`
 *   hash and catch up on what they missed.
 *
 * Commands are not queued while Redis is unreachable: a write then fails at once with UNAVAILABLE naming the
 * store, and reads fall back to what the replica has cached. The client reconnects by itself.
 *
 * @module
 */
import { Redis } from "ioredis";
import type { MapLimits } from "../maps/movingai.ts";
import { ServiceError } from "./errors.ts";
import type { MapVersion } from "./mapCache.ts";
import type {
  CommitResult,
  MapBackend,
  RemoteChange,
  RemotePointer,
  StoredMap,
  WriteNote,
} from "./mapBackend.ts";
import { decodeMap, encodeMap } from "./mapPersistence.ts";
import { displayId } from "./mapKeys.ts";

const LATEST = "arcpath:latest";
const SEQ = "arcpath:seq";
const CHANNEL = "arcpath:changes";
const BLOB = "arcpath:v:";
/** Seconds an uncommitted blob lives (a writer that died between the blob and the pointer). */
const UNCOMMITTED_TTL = 86_400;
/** Seconds a replaced version stays readable for requests that name it. */
const REPLACED_TTL = 3600;

/**
 * Compare-and-set of a map's latest version. KEYS: latest hash, seq hash. ARGV: map key, expected version
 * ("*" any), new version ("" deletes), blob prefix of the map, news JSON, channel, replaced ttl.
 * Returns {1, seq, previous} done, {0, 0, latest} refused (latest changed), {2, 0, ""} delete of nothing,
 * {3, 0, latest} the new blob is gone (expired: write it again).
 */
const CAS = `
local cur = redis.call('HGET', KEYS[1], ARGV[1]) or ''
if ARGV[2] ~= '*' and ARGV[2] ~= cur then return {0, 0, cur} end
if ARGV[3] == '' and cur == '' then return {2, 0, ''} end
if ARGV[3] ~= '' and redis.call('EXISTS', ARGV[4] .. ARGV[3]) == 0 then return {3, 0, cur} end
if cur ~= '' and cur ~= ARGV[3] then redis.call('EXPIRE', ARGV[4] .. cur, tonumber(ARGV[7])) end
if ARGV[3] == '' then
  redis.call('HDEL', KEYS[1], ARGV[1])
else
  redis.call('PERSIST', ARGV[4] .. ARGV[3])
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
end
local seq = redis.call('HINCRBY', KEYS[2], ARGV[1], 1)
local news = cjson.decode(ARGV[5])
news.seq = seq
news.from = cur
redis.call('PUBLISH', ARGV[6], cjson.encode(news))
return {1, seq, cur}
`;

/** Reads one map's latest version and change counter together. */
const POINTER =
  `return {redis.call('HGET', KEYS[1], ARGV[1]) or '', redis.call('HGET', KEYS[2], ARGV[1]) or '0'}`;

/** The news a change publishes. */
interface News {
  origin: string;
  id: string;
  to: string;
  kind: "put" | "patch" | "delete";
  rects?: { x0: number; y0: number; x1: number; y1: number }[];
  seq?: number;
  from?: string;
}

/** Options of the Redis backend. */
export interface RedisBackendOptions {
  /** `redis://HOST:PORT[/DB]`. */
  url: string;
  /** Limits a map read back must respect. */
  limits: MapLimits;
  /** Logs connection changes. */
  log?: (fields: Record<string, unknown>, msg: string) => void;
}

/** Map versions on a shared Redis. */
export class RedisBackend implements MapBackend {
  readonly name: string;
  readonly shared = true;
  readonly #limits: MapLimits;
  readonly #log: RedisBackendOptions["log"];
  readonly #cmd: Redis;
  readonly #sub: Redis;
  /** This process's name in news (its own news is skipped). */
  readonly #origin = crypto.randomUUID();

  /** Connects (lazily: call {@link connect}) to `url`. */
  constructor(opts: RedisBackendOptions) {
    const url = new URL(opts.url);
    if (url.protocol !== "redis:") throw new Error(`expected redis://HOST:PORT[/DB], got ${opts.url}`);
    this.name = `map store ${url.protocol}//${url.host}${url.pathname === "/" ? "" : url.pathname}`;
    this.#limits = opts.limits;
    this.#log = opts.log;
    const common = {
      lazyConnect: true,
      // Fail at once while disconnected (writes answer UNAVAILABLE; reads use the cache), reconnect forever.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: 10_000,
      // At most 250 ms between attempts: a replica is back soon after Redis is (see pointer()).
      retryStrategy: (times: number) => Math.min(50 * times, 250),
    };
    this.#cmd = new Redis(opts.url, common);
    // The subscriber subscribes again itself after each reconnection (listen()): ioredis's own resubscribe
    // leaves its promise unhandled, and a connection lost before Redis answers it crashed the process.
    this.#sub = new Redis(opts.url, { ...common, commandTimeout: undefined, autoResubscribe: false });
    for (const [role, c] of [["commands", this.#cmd], ["subscriber", this.#sub]] as const) {
      c.on("error", (e: Error) => this.#log?.({ store: this.name, role, err: e.message }, "map store error"));
      c.on("end", () => this.#log?.({ store: this.name, role }, "map store connection closed"));
    }
  }

  /** Connects both connections; throws naming the store if Redis cannot be reached. */
  async connect(): Promise<void> {
    try {
      await Promise.all([this.#cmd.connect(), this.#sub.connect()]);
    } catch (e) {
      throw new Error(`${this.name}: cannot connect (${(e as Error).message})`);
    }
  }

  async commit(mv: MapVersion, expected: string | null, note: WriteNote): Promise<CommitResult> {
    const prefix = `${BLOB}${mv.id}:`;
    const news: News = {
      origin: this.#origin,
      id: mv.id,
      to: mv.version,
      kind: note.kind,
      rects: note.rects,
    };
    for (let attempt = 0;; attempt++) {
      const r = await this.#run(mv.id, "was not saved", async () => {
        await this.#cmd.set(prefix + mv.version, encodeMap(mv), "EX", UNCOMMITTED_TTL, "NX");
        return await this.#cmd.eval(
          CAS,
          2,
          LATEST,
          SEQ,
          mv.id,
          expected ?? "*",
          mv.version,
          prefix,
          JSON.stringify(news),
          CHANNEL,
          REPLACED_TTL,
        ) as [number, number, string];
      });
      if (r[0] === 1) return { ok: true, seq: Number(r[1]) };
      if (r[0] === 0) return { ok: false, latest: r[2] === "" ? null : r[2] };
      if (attempt >= 3) {
        throw new ServiceError("UNAVAILABLE", `${this.name}: a new version's blob keeps expiring`);
      }
    }
  }

  async remove(id: string): Promise<number> {
    const news: News = { origin: this.#origin, id, to: "", kind: "delete" };
    const r = await this.#run(
      id,
      "was not deleted",
      async () =>
        await this.#cmd.eval(
          CAS,
          2,
          LATEST,
          SEQ,
          id,
          "*",
          "",
          `${BLOB}${id}:`,
          JSON.stringify(news),
          CHANNEL,
          REPLACED_TTL,
        ) as [
          number,
          number,
          string,
        ],
    );
    return Number(r[1]);
  }

  async read(id: string, version: string): Promise<StoredMap | null> {
    const text = await this.#run(id, "was not read", () => this.#cmd.get(`${BLOB}${id}:${version}`));
    if (text === null) return null;
    const stored = decodeMap(text, this.#limits);
    return stored.id === id ? stored : null;
  }

  async pointer(id: string): Promise<RemotePointer> {
    // Redis is back (the subscriber reconnected) but this connection is still reconnecting: wait for it a
    // little rather than answer from a cache that may be behind what another replica already acknowledged.
    if (this.#cmd.status !== "ready" && this.#sub.status === "ready") await this.#ready(250);
    const [v, seq] = await this.#cmd.eval(POINTER, 2, LATEST, SEQ, id) as [string, string];
    return { id, version: v === "" ? null : v, seq: Number(seq) };
  }

  async *restore(): AsyncGenerator<{ pointer: RemotePointer }> {
    for (const p of await this.#all()) if (p.version !== null) yield { pointer: p };
  }

  listen(change: (c: RemoteChange) => void, resync: (all: RemotePointer[]) => void): void {
    this.#sub.on("message", (_channel: string, text: string) => {
      let n: News;
      try {
        n = JSON.parse(text) as News;
      } catch {
        return;
      }
      if (n.origin === this.#origin) return;
      change({
        id: n.id,
        version: n.kind === "delete" ? null : n.to,
        seq: n.seq ?? 0,
        from: n.from || undefined,
        // cjson encodes an empty list as {}.
        rects: Array.isArray(n.rects) ? n.rects : undefined,
        put: n.kind === "put",
      });
    });
    // "ready" follows each (re)connection: subscribe (again), then catch up on what was missed meanwhile.
    const catchUp = async () => {
      // The command connection may come back a moment after the subscriber: retry while connected.
      let subscribed = false;
      for (let attempt = 0; this.#sub.status === "ready"; attempt++) {
        try {
          if (!subscribed) await this.#sub.subscribe(CHANNEL);
          subscribed = true;
          resync(await this.#all());
          this.#log?.({ store: this.name }, "map store connected: caught up");
          return;
        } catch (e) {
          if (attempt % 20 === 0) {
            this.#log?.({ store: this.name, err: String(e) }, "map store catch-up failed");
          }
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    };
    this.#sub.on("ready", () => void catchUp());
    if (this.#sub.status === "ready") void catchUp();
  }

  async close(): Promise<void> {
    this.#sub.disconnect();
    this.#cmd.disconnect();
    await Promise.resolve();
  }

  /** Resolves when the command connection is ready, or after `ms`. */
  #ready(ms: number): Promise<void> {
    return new Promise((res) => {
      const done = () => {
        clearTimeout(timer);
        this.#cmd.off("ready", done);
        res();
      };
      const timer = setTimeout(done, ms);
      this.#cmd.once("ready", done);
    });
  }

  /**
   * Every map's latest state, read in one transaction: a write between two separate reads gave a map's new
   * counter beside its old version (or no version: "deleted"), and the news of that write was then skipped as
   * already seen, leaving the replica on the old version or without the map (NOT_FOUND) for good.
   */
  async #all(): Promise<RemotePointer[]> {
    const replies = await this.#cmd.multi().hgetall(LATEST).hgetall(SEQ).exec();
    const failed = replies?.find(([e]) => e)?.[0];
    if (!replies || failed) throw failed ?? new Error("map store transaction aborted");
    const [latest, seqs] = replies.map(([, r]) => r as Record<string, string>);
    const ids = new Set([...Object.keys(latest), ...Object.keys(seqs)]);
    return [...ids].map((id) => ({ id, version: latest[id] ?? null, seq: Number(seqs[id] ?? 0) }));
  }

  /** Runs Redis commands; a failure is UNAVAILABLE naming the store and what did not happen. */
  async #run<T>(id: string, what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      if (e instanceof ServiceError) throw e;
      const why = String(e instanceof Error ? e.message : e).slice(0, 200);
      throw new ServiceError(
        "UNAVAILABLE",
        `${this.name} is unavailable (${why}); map ${JSON.stringify(displayId(id))} ${what}`,
      );
    }
  }
}
