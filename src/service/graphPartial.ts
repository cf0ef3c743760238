/**
 * What an abstract graph's preparation has finished, kept on disk as it goes, so a build interrupted by a restart
 * (minutes of block searches at 8192^2) resumes from its finished blocks instead of starting over.
 *
 * The builders flag each chunk of regions once its distance blocks are written (search/abstractGraphBuild.ts,
 * prepareShare's `done`); {@link PartialGraph.flush}, polled by the service while the build runs, appends the
 * newly flagged chunks' block bytes to `<graph file>.partial`, one record each (chunk number, length, a SHA-256
 * prefix of the bytes), and fsyncs. The nodes are not kept: placing them again gives the same skeleton (the same
 * table and layer), and the file records a digest of it. On the next build of the same graph, {@link
 * PartialGraph.open} checks the header against the new skeleton and each record's length and digest, copies the
 * good records' blocks into the skeleton and flags their chunks (the builders skip them), and cuts the file after
 * the last good record (a crash mid-append leaves a torn record). The file goes once the whole graph is saved.
 * Landmarks are not kept: they run after every block and take a fraction of the time.
 *
 * @module
 */
import { createHash } from "node:crypto";
import type { SharedGraphData } from "../search/abstractGraph.ts";
import { chunkCount, REGION_CHUNK } from "../search/abstractGraphBuild.ts";
import { align8, writeAll } from "./mapPersistence.ts";

/** The partial file's first bytes. */
const MAGIC = "arcpath-graph-partial\n";
/** Bumped when the layout changes: an older file is then started afresh. */
const FORMAT = 1;
/** Bytes of a record's head: chunk (u32), byte length (u32), 8 bytes of the SHA-256 of the bytes. */
const RECORD_HEAD = 16;

/** What a partial file's header records. */
interface PartialHeader {
  format: number;
  skeleton: string;
  regionCount: number;
  chunk: number;
  elementBytes: number;
  distanceLength: number;
}

/** A view of `a`'s bytes copied out of shared memory (hashing and writing take unshared bytes). */
function bytesOf(a: ArrayBufferView): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength).slice();
}

/** A digest of a skeleton's nodes and block layout: equal skeletons, equal digests. */
export function skeletonDigest(sk: SharedGraphData): string {
  const h = createHash("sha256");
  for (const a of [sk.nodeTile, sk.regionNodeStart, sk.crossStart, sk.crossTarget, sk.distanceOffset]) {
    h.update(bytesOf(a));
  }
  h.update(`${sk.distance.length}/${sk.distance.BYTES_PER_ELEMENT}`);
  return h.digest("hex");
}

/** The first 8 bytes of the SHA-256 of `bytes`. */
function digest8(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(createHash("sha256").update(bytes).digest().subarray(0, 8));
}

/** One graph's partial file while its build runs. */
export class PartialGraph {
  /** Chunks restored from the file when it was opened. */
  readonly restored: number;
  readonly #path: string;
  readonly #skeleton: SharedGraphData;
  readonly #done: Uint8Array;
  /** Per chunk: 1 once it is in the file. */
  readonly #kept: Uint8Array;
  #file: Deno.FsFile | null;
  #busy: Promise<number> | null = null;

  private constructor(
    path: string,
    skeleton: SharedGraphData,
    done: Uint8Array,
    file: Deno.FsFile,
    restored: number,
  ) {
    this.#path = path;
    this.#skeleton = skeleton;
    this.#done = done;
    this.#kept = new Uint8Array(done.length);
    for (let c = 0; c < done.length; c++) this.#kept[c] = Atomics.load(done, c);
    this.#file = file;
    this.restored = restored;
  }

  /**
   * Opens (or starts) the partial file at `path` for `skeleton`'s build, with `done` its chunk flags (all 0):
   * restores the good records of a file of the same skeleton into the skeleton's blocks and flags their chunks;
   * `why` is told why a file was not used, or where it was cut.
   */
  static async open(
    path: string,
    skeleton: SharedGraphData,
    done: Uint8Array,
    why?: (msg: string) => void,
  ): Promise<PartialGraph> {
    const regions = skeleton.regionNodeStart.length - 1;
    if (done.length !== chunkCount(regions)) throw new RangeError("PartialGraph: one flag a chunk is needed");
    const header: PartialHeader = {
      format: FORMAT,
      skeleton: skeletonDigest(skeleton),
      regionCount: regions,
      chunk: REGION_CHUNK,
      elementBytes: skeleton.distance.BYTES_PER_ELEMENT,
      distanceLength: skeleton.distance.length,
    };
    let good = 0, restored = 0;
    let bytes: Uint8Array | null = null;
    try {
      bytes = await Deno.readFile(path);
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
    }
    if (bytes !== null) {
      const read = restore(bytes, header, skeleton, done);
      good = read.good;
      restored = read.restored;
      if (read.why) why?.(read.why);
    }
    let file: Deno.FsFile;
    if (good === 0) {
      file = await Deno.open(path, { write: true, create: true, truncate: true });
      await writeAll(file, encodeHeader(header));
    } else {
      file = await Deno.open(path, { write: true });
      await file.truncate(good);
      await file.seek(good, Deno.SeekMode.Start);
    }
    await file.syncData();
    return new PartialGraph(path, skeleton, done, file, restored);
  }

  /**
   * Appends the chunks flagged done since the last flush and fsyncs; returns how many. Calls made while one runs
   * share it.
   */
  flush(): Promise<number> {
    if (this.#busy !== null) return this.#busy;
    const job = this.#flush().finally(() => this.#busy = null);
    this.#busy = job;
    return job;
  }

  async #flush(): Promise<number> {
    const file = this.#file;
    if (file === null) return 0;
    const { distance, distanceOffset } = this.#skeleton;
    const regions = distanceOffset.length;
    let n = 0;
    for (let c = 0; c < this.#done.length; c++) {
      if (this.#kept[c] === 1 || Atomics.load(this.#done, c) !== 1) continue;
      const r0 = c * REGION_CHUNK, r1 = Math.min(regions, r0 + REGION_CHUNK);
      const e0 = distanceOffset[r0], e1 = r1 < regions ? distanceOffset[r1] : distance.length;
      const body = bytesOf(distance.subarray(e0, e1));
      const head = new Uint8Array(RECORD_HEAD);
      const view = new DataView(head.buffer);
      view.setUint32(0, c, true);
      view.setUint32(4, body.length, true);
      head.set(digest8(body), 8);
      await writeAll(file, head);
      await writeAll(file, body);
      if (body.length % 8 !== 0) await writeAll(file, new Uint8Array(8 - (body.length % 8)));
      this.#kept[c] = 1;
      n++;
    }
    if (n > 0) await file.syncData();
    return n;
  }

  /** Stops keeping (after a failed build: the file stays for the next try). */
  async close(): Promise<void> {
    await this.#busy?.catch(() => {});
    this.#file?.close();
    this.#file = null;
  }

  /** Closes and removes the file (the whole graph is saved). */
  async remove(): Promise<void> {
    await this.close();
    await Deno.remove(this.#path).catch(() => {});
  }
}

function encodeHeader(header: PartialHeader): Uint8Array {
  const magic = new TextEncoder().encode(MAGIC);
  const json = new TextEncoder().encode(JSON.stringify(header));
  const out = new Uint8Array(align8(magic.length + 4 + json.length));
  out.set(magic);
  new DataView(out.buffer).setUint32(magic.length, json.length, true);
  out.set(json, magic.length + 4);
  return out;
}

/**
 * Copies the good records of a partial file's `bytes` into `skeleton`'s blocks and flags their chunks in `done`;
 * `good` is the byte length up to the last good record (0: the file is of another skeleton or unreadable).
 */
function restore(
  bytes: Uint8Array,
  header: PartialHeader,
  skeleton: SharedGraphData,
  done: Uint8Array,
): { good: number; restored: number; why?: string } {
  const magic = new TextEncoder().encode(MAGIC);
  if (
    bytes.length < magic.length + 4 || new TextDecoder().decode(bytes.subarray(0, magic.length)) !== MAGIC
  ) {
    return { good: 0, restored: 0, why: "not a partial graph file" };
  }
  const jsonLength = new DataView(bytes.buffer, bytes.byteOffset).getUint32(magic.length, true);
  let theirs: PartialHeader;
  try {
    theirs = JSON.parse(
      new TextDecoder().decode(bytes.subarray(magic.length + 4, magic.length + 4 + jsonLength)),
    );
  } catch {
    return { good: 0, restored: 0, why: "unreadable header" };
  }
  if (JSON.stringify(theirs) !== JSON.stringify(header)) {
    return { good: 0, restored: 0, why: "made for another skeleton or format" };
  }
  const { distance, distanceOffset } = skeleton;
  const regions = header.regionCount, size = header.elementBytes;
  const dest = new Uint8Array(distance.buffer, distance.byteOffset, distance.byteLength);
  let at = align8(magic.length + 4 + jsonLength), restored = 0;
  while (at + RECORD_HEAD <= bytes.length) {
    const view = new DataView(bytes.buffer, bytes.byteOffset + at, RECORD_HEAD);
    const c = view.getUint32(0, true), length = view.getUint32(4, true);
    if (c >= done.length || done[c] === 1) return { good: at, restored, why: `record at ${at}: chunk ${c}` };
    const r0 = c * REGION_CHUNK, r1 = Math.min(regions, r0 + REGION_CHUNK);
    const e0 = distanceOffset[r0], e1 = r1 < regions ? distanceOffset[r1] : distance.length;
    const body = bytes.subarray(at + RECORD_HEAD, at + RECORD_HEAD + length);
    if (length !== (e1 - e0) * size || body.length !== length) {
      return { good: at, restored, why: `record at ${at}: cut short or of another length` };
    }
    const want = bytes.subarray(at + 8, at + RECORD_HEAD), got = digest8(body);
    if (!want.every((b, i) => b === got[i])) {
      return { good: at, restored, why: `record at ${at}: digest differs` };
    }
    dest.set(body, e0 * size);
    Atomics.store(done, c, 1);
    restored++;
    at = align8(at + RECORD_HEAD + length);
  }
  if (at !== bytes.length) return { good: at, restored, why: `cut after ${at} bytes` };
  return { good: at, restored };
}
