/**
 * Where render's map and path come from besides files: a live arcpath server, through the JSON API of its live
 * viewer (`--http HOST:PORT`: GET /api/maps/ID?tiles=1 with a window, POST /api/plan), so the picture shows
 * exactly the tiles and the path the server holds; and a crop of a layer to a window of tiles.
 *
 * @module
 */
import type { PassLayer } from "../maps/grid.ts";

/** A window of tiles as --crop gives it: first column and row, width and height. */
export interface Crop {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A layer of tile costs (0 = blocked) and the map tile at its (0, 0). */
export interface PlacedLayer {
  /** The tiles drawn. */
  layer: Pick<PassLayer, "width" | "height" | "tileCost">;
  /** Map column and row of the layer's first tile (0, 0 for a whole map). */
  origin: { x: number; y: number };
}

/** The window of a layer (clipped to it); throws naming --crop when it lies outside. */
export function cropLayer(
  layer: Pick<PassLayer, "width" | "height" | "tileCost">,
  rect: Crop,
): PlacedLayer {
  const x0 = Math.max(0, rect.x), y0 = Math.max(0, rect.y);
  const x1 = Math.min(layer.width, rect.x + rect.width), y1 = Math.min(layer.height, rect.y + rect.height);
  if (x1 <= x0 || y1 <= y0) {
    throw new Error(
      `--crop ${rect.x},${rect.y},${rect.width},${rect.height}: outside the ${layer.width} x ${layer.height} map`,
    );
  }
  const width = x1 - x0, height = y1 - y0;
  const tileCost = new Float32Array(width * height);
  for (let r = 0; r < height; r++) {
    tileCost.set(
      layer.tileCost.subarray((y0 + r) * layer.width + x0, (y0 + r) * layer.width + x1),
      r * width,
    );
  }
  return { layer: { width, height, tileCost }, origin: { x: x0, y: y0 } };
}

/** An answer of the server's JSON API, or throws its {code, message} as the error. */
async function api<T>(server: string, path: string, init?: RequestInit, token?: string): Promise<T> {
  const base = /^https?:\/\//.test(server) ? server : `http://${server}`;
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  let res: Response;
  try {
    res = await fetch(base + path, { ...init, headers });
  } catch (e) {
    throw new Error(
      `--server ${server}: ${(e as Error).message} (is the server running with --http ${server}?)`,
    );
  }
  const body = await res.json().catch(() => null);
  if (!res.ok) {
    throw new Error(`--server ${server}: ${body?.code ?? res.status}: ${body?.message ?? res.statusText}`);
  }
  return body as T;
}

/** The terrain entries of MapInfo: codes listed are passable (with a cost) or road; the rest are blocked. */
interface WireTerrain {
  code: number;
  cost: number;
  impassable: boolean;
}

/** A map (or the window `crop` of it) from a live server, as a layer of tile costs. */
export async function serverMap(
  server: string,
  id: string,
  crop: Crop | null,
  token?: string,
): Promise<PlacedLayer & { version: string; mapWidth: number; mapHeight: number }> {
  const q = crop ? `&x=${crop.x}&y=${crop.y}&width=${crop.width}&height=${crop.height}` : "";
  const info = await api<{
    version: string;
    width: number;
    height: number;
    terrain: WireTerrain[];
    tiles: { width: number; height: number; tiles: string };
    tiles_x: number;
    tiles_y: number;
  }>(server, `/api/maps/${encodeURIComponent(id)}?tiles=1${q}`, undefined, token);
  const cost = new Float32Array(256);
  for (const t of info.terrain) if (!t.impassable) cost[t.code] = t.cost;
  const bytes = Uint8Array.from(atob(info.tiles.tiles), (c) => c.charCodeAt(0));
  const tileCost = new Float32Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) tileCost[i] = cost[bytes[i]];
  return {
    layer: { width: info.tiles.width, height: info.tiles.height, tileCost },
    origin: { x: info.tiles_x, y: info.tiles_y },
    version: info.version,
    mapWidth: info.width,
    mapHeight: info.height,
  };
}

/** A plan from a live server: its PlanResponse (proto field names). */
export function serverPlan(
  server: string,
  request: Record<string, unknown>,
  token?: string,
  // deno-lint-ignore no-explicit-any
): Promise<{ response: any }> {
  return api(server, "/api/plan", { method: "POST", body: JSON.stringify(request) }, token);
}
