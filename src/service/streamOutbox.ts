/**
 * A path stream's outgoing updates: numbered and sent while the client reads; while its transport buffer is
 * full, held and coalesced to the latest path (sent whole on drain: the client missed the ones before) and the
 * latest status, so a slow reader costs at most the transport's buffer plus the current path however many
 * patches arrive; and dropped with RESOURCE_EXHAUSTED when it stays full past the stall limit.
 *
 * @module
 */
import { ServiceError } from "./errors.ts";
import type { PlanResult } from "./planService.ts";

/** Why an update is sent (wire UpdateKind without the prefix). */
export type UpdateKind = "INITIAL" | "REFINED" | "REPLANNED" | "GOAL_CHANGED" | "STATUS";

/** One update for the client. */
export interface StreamUpdate {
  /** 1, 2, 3, ... */
  sequence: number;
  /** Why. */
  kind: UpdateKind;
  /** The plan (absent for pure status updates). */
  result: PlanResult | null;
  /** For STATUS: "unreachable", "budget_exhausted", "map_deleted", "shutdown", "error". */
  status: string;
  /** Details for STATUS updates. */
  message: string;
  /** -1: `result` holds the whole path; else its segments replace the previous path from this segment index. */
  replaceFromSegment: number;
  /** With replaceFromSegment >= 0: the distance along that segment where the replacement starts. */
  replaceFromDistance: number;
}

/**
 * Sends an update to the client; false when the transport's buffer is full (the client is not reading): the
 * stream then holds further updates until {@link UpdateOutbox.drain}.
 */
export type Emit = (u: StreamUpdate) => boolean | void;

/** How long a stream may stay unable to send (its client reading nothing) before it is dropped, by default. */
export const DEFAULT_STALL_MS = 30_000;

/** A held update: what to send again on drain (a held path is sent with the stream's path at that time). */
interface Held {
  kind: UpdateKind;
  status: string;
  message: string;
}

/** One stream's outbox (see the module doc). */
export class UpdateOutbox {
  readonly #emit: Emit;
  readonly #stallMs: number;
  readonly #current: () => PlanResult | null;
  readonly #onStall: (e: ServiceError) => void;
  #seq = 0;
  #stopped = false;
  /** The transport's buffer is full: updates are held, coalesced to the latest, until the client reads. */
  #blocked = false;
  /** The latest path update held while blocked. */
  #heldPath: Held | null = null;
  /** The latest pure status held while blocked (sent after the path). */
  #heldStatus: Held | null = null;
  #stallTimer: ReturnType<typeof setTimeout> | undefined;

  /**
   * `current` gives the stream's path now (a held path update sends it whole); `onStall` ends the stream when
   * the client read nothing for `stallMs` with the buffer full.
   */
  constructor(
    emit: Emit,
    stallMs: number,
    current: () => PlanResult | null,
    onStall: (e: ServiceError) => void,
  ) {
    this.#emit = emit;
    this.#stallMs = stallMs;
    this.#current = current;
    this.#onStall = onStall;
  }

  /** Sends an update, or holds it while the client is not reading. */
  send(
    kind: UpdateKind,
    result: PlanResult | null,
    status: string,
    message: string,
    replaceFromSegment = -1,
    replaceFromDistance = 0,
  ): void {
    if (this.#blocked) {
      if (result) this.#heldPath = { kind, status, message };
      else this.#heldStatus = { kind, status, message };
      return;
    }
    const sent = this.#emit({
      sequence: ++this.#seq,
      kind,
      result,
      status,
      message,
      replaceFromSegment,
      replaceFromDistance,
    });
    if (sent === false && !this.#stopped) {
      this.#blocked = true;
      this.#stallTimer = setTimeout(() => {
        this.#onStall(
          new ServiceError(
            "RESOURCE_EXHAUSTED",
            `stream: the client read no update for ${this.#stallMs} ms with the send buffer full ` +
              `(limit --stream-stall-ms ${this.#stallMs}); dropped`,
          ),
        );
      }, this.#stallMs);
    }
  }

  /** The transport's buffer emptied (the client read): sends what was held, the latest path whole. */
  drain(): void {
    if (this.#stopped || !this.#blocked) return;
    this.#blocked = false;
    clearTimeout(this.#stallTimer);
    const path = this.#heldPath;
    const status = this.#heldStatus;
    this.#heldPath = this.#heldStatus = null;
    if (path) this.send(path.kind, this.#current(), path.status, path.message);
    if (status && !this.#blocked) this.send(status.kind, null, status.status, status.message);
    else if (status) this.#heldStatus = status;
  }

  /** The next update goes out even to a blocked client (a final status: one message more, so it learns why). */
  unblock(): void {
    this.#blocked = false;
  }

  /** The stream ended: no stall timer, nothing more held. */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#stallTimer);
  }
}
