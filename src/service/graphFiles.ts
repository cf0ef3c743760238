/**
 * Prepared abstract graphs kept in the data directory (`graphs/<version>-<key>.graph`), so a restart, or the same
 * tiles uploaded under another id, reuses a big map's graph instead of preparing it again (seconds to a minute at
 * 8192^2). A file is named by the map's content-hash version and a digest of everything else the graph depends
 * on (terrain table, clearance class, neighbourhood, entrance sampling, landmarks, sector size, this format), so a
 * file is never read for another graph. It is written as the map files are (mapPersistence.ts): whole to a
 * temporary file, fsynced, renamed, the directory fsynced; a crash leaves the old state or the new file, whole.
 * Reading checks the layout against the region table (counts and array lengths); a file that does not fit is
 * removed and the graph prepared again. The shortest-path trees are not kept: they are written per node on first
 * use (abstractGraphTrees.ts), so they start empty. Files of versions the store no longer holds are removed at
 * start ({@link GraphFiles.prune}).
 *
 * @module
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import type { RegionTable } from "../maps/regions.ts";
import type { SharedGraphData } from "../search/abstractGraph.ts";
import type { KeptGraph } from "../search/abstractGraphKept.ts";
import { align8, denoFs, type MapFs, writeAll } from "./mapPersistence.ts";

/** Bumped whenever the graph's arrays or their meaning change: older files are then ignored and pruned. */
const FORMAT = 2;
const SUFFIX = ".graph";
/** Added to a graph file's name for its unfinished build's blocks (graphPartial.ts). */
const PARTIAL = ".partial";
/** A map line's record of its latest graph file (see GraphFiles.latest). */
const LINE_SUFFIX = ".line";
const TMP_MARK = ".graph.tmp-";
/** The file's first bytes. */
const MAGIC = "arcpath-graph\n";
let tmpCounter = 0;

/** The arrays of a graph file, in order, with their element type (trees are left out: see the module doc). */
const ARRAYS = [
  ["nodeTile", "i32"],
  ["nodeRegion", "i32"],
  ["regionNodeStart", "i32"],
  ["crossStart", "i32"],
  ["crossTarget", "i32"],
  ["crossCost", "f64"],
  ["distanceOffset", "f64"],
  ["distance", "u32|f64"],
  ["landmarkBase", "f64"],
  ["landmarkDistance", "u32|f64"],
  ["sectorRegionStart", "i32"],
  ["sectorPrint", "u32"],
] as const;

type ArrayName = (typeof ARRAYS)[number][0];
type Typed = Int32Array | Uint32Array | Float64Array;

/** What a file keeps besides the graph, for the next version of the map (search/abstractGraphKept.ts). */
export type KeptExtra = Omit<KeptGraph, "graph">;

/** What a graph file's header records. */
interface GraphHeader {
  format: number;
  key: string;
  nodeCount: number;
  tileCount: number;
  regionCount: number;
  neighborhood: 4 | 8;
  maxRegionNodes: number;
  maxCrossings: number;
  landmarkCount: number;
  uniformCost: boolean;
  prepExpansions: number;
  treeStepBytes: number;
  /** The layer's minCost and the map's width (what a later version's graph compares: abstractGraphKept.ts). */
  minCost: number;
  width: number;
  arrays: { name: ArrayName; type: "i32" | "u32" | "f64"; length: number }[];
}

/** Prepared graphs under `<dataDir>/graphs`. */
export class GraphFiles {
  readonly #dir: string;
  readonly #fs: MapFs;

  /** Graph files of the data directory `dataDir`; file calls go to `fs`. */
  constructor(dataDir: string, fs: MapFs = denoFs) {
    this.#dir = join(dataDir, "graphs");
    this.#fs = fs;
  }

  /**
   * The file name of the graph of map version `version` for the layer and graph keys (`terrainKey`: the layer's
   * terrain table; `graphKey`: class, neighbourhood, sampling, landmarks, sector size).
   */
  name(version: string, terrainKey: string, graphKey: string): string {
    const digest = createHash("sha256").update(`${FORMAT}\n${terrainKey}\n${graphKey}`).digest("hex").slice(
      0,
      24,
    );
    return `${version}-${digest}${SUFFIX}`;
  }

  /**
   * The path of graph file `name`'s partial file: what an unfinished build of it has done (graphPartial.ts). The
   * directory is made.
   */
  async partialPath(name: string): Promise<string> {
    await this.#fs.mkdir(this.#dir);
    return join(this.#dir, `${name}${PARTIAL}`);
  }

  /** Whether a graph file exists (a synchronous stat: one per graph and process, before its first load). */
  has(name: string): boolean {
    try {
      return Deno.statSync(join(this.#dir, name)).isFile;
    } catch {
      return false;
    }
  }

  /**
   * The graph in file `name` over shared memory, checked against `table` (null when there is none; a file that
   * does not fit is removed and null returned, with `why` told).
   */
  async read(name: string, table: RegionTable, why?: (msg: string) => void): Promise<SharedGraphData | null> {
    const path = join(this.#dir, name);
    let bytes: Uint8Array;
    try {
      bytes = await Deno.readFile(path);
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) return null;
      throw e;
    }
    try {
      return decodeGraph(bytes, name, table.regionLocal.length, table.regionCount).graph;
    } catch (e) {
      why?.(e instanceof Error ? e.message : String(e));
      await this.#fs.remove(path).catch(() => {});
      return null;
    }
  }

  /**
   * The graph in file `name` with what it keeps for a later version of the map (an earlier version's file: its
   * table is not at hand, so only the file's own consistency and the tile count `tileCount` are checked). Null
   * when there is none or it does not fit (then `why` is told; the file stays, its own version may still use it).
   */
  async readKept(name: string, tileCount: number, why?: (msg: string) => void): Promise<KeptGraph | null> {
    let bytes: Uint8Array;
    try {
      bytes = await Deno.readFile(join(this.#dir, name));
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) return null;
      throw e;
    }
    try {
      const { graph, extra } = decodeGraph(bytes, name, tileCount, -1);
      return { graph, ...extra };
    } catch (e) {
      why?.(e instanceof Error ? e.message : String(e));
      return null;
    }
  }

  /**
   * The graph file last written for a map's line (its id, terrain and graph key: `line`), or null. A patched
   * version that finds no earlier graph in memory reads that file ({@link readKept}).
   */
  async latest(line: string): Promise<string | null> {
    try {
      const text = await Deno.readTextFile(join(this.#dir, lineName(line)));
      const record = JSON.parse(text);
      return typeof record?.file === "string" && record.file.endsWith(SUFFIX) && !record.file.includes("/")
        ? record.file
        : null;
    } catch {
      return null;
    }
  }

  /**
   * Records `file` as the latest graph file of `line` (see {@link latest}), atomically. A line starts with the
   * map's id and a newline (the id is recorded for {@link prune}).
   */
  async setLatest(line: string, file: string): Promise<void> {
    const final = join(this.#dir, lineName(line));
    const tmp = `${final}${TMP_MARK}${Deno.pid}-${++tmpCounter}`;
    await this.#fs.mkdir(this.#dir);
    const handle = await this.#fs.create(tmp);
    try {
      const map = line.slice(0, line.indexOf("\n"));
      await writeAll(handle, new TextEncoder().encode(JSON.stringify({ file, map })));
      await handle.sync();
    } finally {
      handle.close();
    }
    try {
      await this.#fs.rename(tmp, final);
    } catch (e) {
      await this.#fs.remove(tmp).catch(() => {});
      throw e;
    }
  }

  /** Writes under way, so that a shutdown can let them finish (a graph is minutes of work to prepare again). */
  readonly #pending = new Set<Promise<void>>();

  /** Resolves once every write begun before the call has ended (written or failed). */
  async settle(): Promise<void> {
    await Promise.allSettled([...this.#pending]);
  }

  /**
   * Writes `data` as file `name`, with `extra` (what a later version's preparation compares), atomically and
   * durably (see the module doc), then records it as map line `line`'s latest ({@link setLatest}); throws what
   * the disk threw.
   */
  write(name: string, data: SharedGraphData, extra: KeptExtra, line: string | null = null): Promise<void> {
    const job = this.#write(name, data, extra).then(() =>
      line === null ? undefined : this.setLatest(line, name)
    );
    this.#pending.add(job);
    const done = () => void this.#pending.delete(job);
    job.then(done, done);
    return job;
  }

  async #write(name: string, data: SharedGraphData, extra: KeptExtra): Promise<void> {
    const final = join(this.#dir, name);
    const tmp = join(this.#dir, `${name.slice(0, -SUFFIX.length)}${TMP_MARK}${Deno.pid}-${++tmpCounter}`);
    await this.#fs.mkdir(this.#dir);
    const file = await this.#fs.create(tmp);
    let renamed = false;
    try {
      for (const part of encodeGraph(data, extra, name)) await writeAll(file, part);
      await file.sync();
      file.close();
      await this.#fs.rename(tmp, final);
      renamed = true;
      await this.#fs.syncDir(this.#dir);
    } catch (e) {
      if (!renamed) {
        try {
          file.close();
        } catch { /* closed already */ }
        await this.#fs.remove(tmp).catch(() => {});
      }
      throw e;
    }
  }

  /**
   * Removes temporary files a crash left and files of versions not in `keep` (the versions the store holds);
   * returns how many it removed. With `maps` (the map ids the store holds), a map's latest graph file stays even
   * when its version is gone (a patch whose own graph is not prepared yet takes blocks from it), and the line
   * records of other maps go.
   */
  async prune(keep: Set<string>, maps: Set<string> | null = null): Promise<number> {
    let removed = 0;
    const latest = new Set<string>();
    try {
      if (maps !== null) {
        for await (const entry of this.#fs.readDir(this.#dir)) {
          if (!entry.isFile || !entry.name.endsWith(LINE_SUFFIX)) continue;
          const record = await this.#fs.readTextFile(join(this.#dir, entry.name)).then(JSON.parse).catch(() =>
            null
          );
          if (typeof record?.map === "string" && maps.has(record.map) && typeof record.file === "string") {
            latest.add(record.file);
          } else {
            await this.#fs.remove(join(this.#dir, entry.name)).catch(() => {});
            removed++;
          }
        }
      }
      for await (const entry of this.#fs.readDir(this.#dir)) {
        if (!entry.isFile) continue;
        const graph = entry.name.endsWith(SUFFIX) || entry.name.endsWith(`${SUFFIX}${PARTIAL}`);
        const stale = entry.name.includes(TMP_MARK) ||
          (graph && !keep.has(entry.name.slice(0, entry.name.lastIndexOf("-"))) && !latest.has(entry.name));
        if (!stale) continue;
        await this.#fs.remove(join(this.#dir, entry.name)).catch(() => {});
        removed++;
      }
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
    }
    return removed;
  }
}

/**
 * The file's parts, made one at a time: magic, header length (4 bytes LE), header JSON padded to 8 bytes, then
 * each array's bytes padded to 8.
 */
function* encodeGraph(graph: SharedGraphData, extra: KeptExtra, key: string): Generator<Uint8Array> {
  const d = { ...graph, ...extra };
  const arrays = ARRAYS.map(([name]) => {
    const a = d[name] as Typed;
    const type = a instanceof Int32Array ? "i32" : a instanceof Uint32Array ? "u32" : "f64";
    return { name, type, length: a.length } as GraphHeader["arrays"][number];
  });
  const header: GraphHeader = {
    format: FORMAT,
    key,
    nodeCount: d.nodeCount,
    tileCount: d.tileCount,
    regionCount: d.regionNodeStart.length - 1,
    neighborhood: d.neighborhood === 4 ? 4 : 8,
    maxRegionNodes: d.maxRegionNodes,
    maxCrossings: d.maxCrossings,
    landmarkCount: d.landmarkCount,
    uniformCost: d.uniformCost,
    prepExpansions: d.prepExpansions,
    treeStepBytes: d.treeStep.byteLength,
    minCost: extra.minCost,
    width: extra.width,
    arrays,
  };
  const json = new TextEncoder().encode(JSON.stringify(header));
  const magic = new TextEncoder().encode(MAGIC);
  const head = new Uint8Array(align8(magic.length + 4 + json.length));
  head.set(magic);
  new DataView(head.buffer).setUint32(magic.length, json.length, true);
  head.set(json, magic.length + 4);
  yield head;
  for (const [name] of ARRAYS) {
    const a = d[name] as Typed;
    // A view of shared memory is copied (a write may not take one), one array at a time.
    const bytes = new Uint8Array(a.byteLength);
    bytes.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
    yield bytes;
    if (bytes.length % 8 !== 0) yield new Uint8Array(8 - (bytes.length % 8));
  }
}

/**
 * A graph file's data over fresh SharedArrayBuffers, checked against a table of `tileCount` tiles and
 * `regionCount` regions (-1: any); throws naming what is wrong.
 */
function decodeGraph(
  bytes: Uint8Array,
  key: string,
  tileCount: number,
  regionCount: number,
): { graph: SharedGraphData; extra: KeptExtra } {
  const magic = new TextEncoder().encode(MAGIC);
  if (
    bytes.length < magic.length + 4 || new TextDecoder().decode(bytes.subarray(0, magic.length)) !== MAGIC
  ) {
    throw new Error(`graph file ${key}: not a graph file`);
  }
  const jsonLength = new DataView(bytes.buffer, bytes.byteOffset).getUint32(magic.length, true);
  let header: GraphHeader;
  try {
    header = JSON.parse(
      new TextDecoder().decode(bytes.subarray(magic.length + 4, magic.length + 4 + jsonLength)),
    );
  } catch {
    throw new Error(`graph file ${key}: unreadable header`);
  }
  const fail = (what: string) => new Error(`graph file ${key}: ${what}`);
  if (header.format !== FORMAT || header.key !== key) throw fail("another format or graph");
  if (header.tileCount !== tileCount || (regionCount >= 0 && header.regionCount !== regionCount)) {
    throw fail(
      `made for ${header.tileCount} tiles and ${header.regionCount} regions, the table has ` +
        `${tileCount} and ${regionCount}`,
    );
  }
  const n = header.nodeCount, lm = header.landmarkCount, regions = header.regionCount;
  const expected: Record<ArrayName, number> = {
    nodeTile: n,
    nodeRegion: n,
    regionNodeStart: regions + 1,
    crossStart: n + 1,
    crossTarget: -1,
    crossCost: -1,
    distanceOffset: regions,
    distance: -1,
    landmarkBase: regions * lm,
    landmarkDistance: n * lm,
    sectorRegionStart: -1,
    sectorPrint: -1,
  };
  let at = align8(magic.length + 4 + jsonLength);
  const out: Partial<Record<ArrayName, Typed>> = {};
  if (header.arrays.length !== ARRAYS.length) throw fail("wrong arrays");
  for (let i = 0; i < ARRAYS.length; i++) {
    const spec = header.arrays[i];
    const [name, types] = ARRAYS[i];
    if (spec.name !== name || !types.split("|").includes(spec.type)) throw fail(`array ${i} is not ${name}`);
    if (expected[name] >= 0 && spec.length !== expected[name]) {
      throw fail(`${name} has ${spec.length} entries`);
    }
    const width = spec.type === "f64" ? 8 : 4;
    const size = spec.length * width;
    if (at + size > bytes.length) throw fail("cut short");
    const buf = new SharedArrayBuffer(size);
    const a = spec.type === "i32"
      ? new Int32Array(buf)
      : spec.type === "u32"
      ? new Uint32Array(buf)
      : new Float64Array(buf);
    new Uint8Array(a.buffer).set(bytes.subarray(at, at + size));
    out[name] = a;
    at = align8(at + size);
  }
  if (at !== bytes.length) throw fail("longer than its header says");
  const starts = out.regionNodeStart as Int32Array, offsets = out.distanceOffset as Float64Array;
  const lastK = regions > 0 ? starts[regions] - starts[regions - 1] : 0;
  if (
    starts[regions] !== n || (regions > 0 && offsets[regions - 1] + lastK * lastK !== out.distance!.length)
  ) {
    throw fail("node or block counts do not match");
  }
  const crossStart = out.crossStart as Int32Array;
  if (out.crossTarget!.length !== crossStart[n] || out.crossCost!.length !== crossStart[n]) {
    throw fail("crossing arrays do not match");
  }
  const sectorRegionStart = out.sectorRegionStart as Int32Array, sectorPrint = out.sectorPrint as Uint32Array;
  const sectors = sectorRegionStart.length - 1;
  if (
    sectors < 0 || sectorRegionStart[sectors] !== regions || sectorPrint.length !== 2 * sectors ||
    typeof header.minCost !== "number" || typeof header.width !== "number"
  ) {
    throw fail("sector arrays do not match");
  }
  for (let s = 0; s < sectors; s++) {
    if (sectorRegionStart[s] > sectorRegionStart[s + 1]) throw fail("sector arrays do not match");
  }
  const extra = { sectorRegionStart, sectorPrint, minCost: header.minCost, width: header.width };
  const graph: SharedGraphData = {
    kind: "abstractGraph",
    neighborhood: header.neighborhood,
    nodeCount: n,
    nodeTile: out.nodeTile as Int32Array,
    nodeRegion: out.nodeRegion as Int32Array,
    tileCount: header.tileCount,
    regionNodeStart: out.regionNodeStart as Int32Array,
    crossStart,
    crossTarget: out.crossTarget as Int32Array,
    crossCost: out.crossCost as Float64Array,
    maxRegionNodes: header.maxRegionNodes,
    maxCrossings: header.maxCrossings,
    distanceOffset: out.distanceOffset as Float64Array,
    distance: out.distance as Uint32Array | Float64Array,
    treeStep: new Uint8Array(new SharedArrayBuffer(header.treeStepBytes)),
    treeReady: new Uint8Array(new SharedArrayBuffer(n)),
    landmarkCount: lm,
    landmarkBase: out.landmarkBase as Float64Array,
    landmarkDistance: out.landmarkDistance as Uint32Array | Float64Array,
    uniformCost: header.uniformCost,
    prepExpansions: header.prepExpansions,
  };
  return { graph, extra };
}

/** The file name of a map line's record of its latest graph file ({@link GraphFiles.latest}). */
function lineName(line: string): string {
  return `${createHash("sha256").update(line).digest("hex").slice(0, 32)}${LINE_SUFFIX}`;
}
