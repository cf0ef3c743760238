/**
 * A config file read at start and re-read when it changes (polled by size and mtime) or on demand (SIGHUP):
 * the token file and the JWKS file of authentication. A change that does not parse is logged once and the
 * previous contents stay in force.
 *
 * @module
 */
import { readFileSync, statSync } from "node:fs";

/** How a {@link WatchedFile} parses and reports. */
export interface WatchedFileOptions<T> {
  /** Parses the text (throws naming the problem; the path is given for messages). */
  parse: (text: string, path: string) => T;
  /** Log sink. */
  log: (fields: Record<string, unknown>, msg: string) => void;
  /** Log message of a reload that took, and extra fields for it. */
  reloaded: { msg: string; fields?: (value: T) => Record<string, unknown> };
  /** Log message of a reload that did not parse. */
  failed: string;
}

/** The parsed contents of a file, kept current. */
export class WatchedFile<T> {
  readonly #path: string;
  readonly #opts: WatchedFileOptions<T>;
  #value: T;
  #stamp: string;
  #timer: ReturnType<typeof setInterval> | undefined;

  /** Reads the file now (throws if it does not parse: a bad config fails at start). */
  constructor(path: string, opts: WatchedFileOptions<T>) {
    this.#path = path;
    this.#opts = opts;
    this.#stamp = this.#currentStamp();
    this.#value = opts.parse(readFileSync(path, "utf8"), path);
  }

  /** The contents as last parsed. */
  get value(): T {
    return this.#value;
  }

  #currentStamp(): string {
    try {
      const s = statSync(this.#path);
      return `${s.size}:${s.mtimeMs}`;
    } catch {
      return "missing";
    }
  }

  /** Re-reads the file; keeps the previous contents if it does not parse. Returns whether it took. */
  reload(reason: string): boolean {
    // Stamped either way: a bad change is logged once, and the next write to the file is noticed again.
    this.#stamp = this.#currentStamp();
    try {
      this.#value = this.#opts.parse(readFileSync(this.#path, "utf8"), this.#path);
      this.#opts.log({ reason, ...this.#opts.reloaded.fields?.(this.#value) }, this.#opts.reloaded.msg);
      return true;
    } catch (e) {
      this.#opts.log({ reason, err: (e as Error).message }, this.#opts.failed);
      return false;
    }
  }

  /** Polls the file every `ms` and reloads it when it changed. */
  watch(ms: number): void {
    clearInterval(this.#timer);
    this.#timer = setInterval(() => {
      if (this.#currentStamp() !== this.#stamp) this.reload("file changed");
    }, ms);
  }

  /** Stops watching. */
  close(): void {
    clearInterval(this.#timer);
  }
}
