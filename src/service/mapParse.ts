/**
 * An uploaded map's tiles and terrain, parsed and validated against the upload limits before the map store
 * (mapStore.ts) makes a version of them; errors name the field (INVALID_ARGUMENT / RESOURCE_EXHAUSTED).
 *
 * @module
 */
import type { GridMap } from "../maps/grid.ts";
import { type MapLimits, parseMovingAi, rawGrid } from "../maps/movingai.ts";
import { movingAiTerrain, rawTerrain, type TerrainEntry, withOverrides } from "../maps/terrain.ts";
import { translateMapError } from "./mapErrors.ts";

/** Default limits (--max-map-side, --max-map-tiles): 8192 x 8192, 64 Mi tiles. */
export const DEFAULT_LIMITS: MapLimits = { maxWidth: 8192, maxHeight: 8192, maxTiles: 8192 * 8192 };

/** A map's tiles as uploaded. */
export type GridInput =
  | { kind: "movingai"; text: string }
  | { kind: "raw"; width: number; height: number; tiles: Uint8Array };

/** Parses and validates an upload; throws INVALID_ARGUMENT / RESOURCE_EXHAUSTED naming the field. */
export function parseUpload(grid: GridInput, terrainInput: TerrainEntry[], limits: MapLimits): GridMap {
  try {
    const parsed = grid.kind === "movingai"
      ? parseMovingAi(grid.text, limits)
      : rawGrid(grid.width, grid.height, grid.tiles, limits);
    const base = grid.kind === "movingai" ? movingAiTerrain() : rawTerrain();
    const terrain = terrainInput.length > 0 ? withOverrides(base, terrainInput) : base;
    return { width: parsed.width, height: parsed.height, tiles: parsed.tiles, terrain };
  } catch (e) {
    throw translateMapError(e, grid.kind === "movingai" ? "movingai" : "raw");
  }
}
