/**
 * Updating a region table after a map edit: only the sectors whose open tiles changed are flood filled again;
 * the result equals a fresh build.
 *
 * @module
 */

import { clearanceCodeAtLeast, type PassLayer } from "./grid.ts";
import { CAP_REACH, clipRect } from "./layer.ts";
import { labelSectors, linkRegions } from "./regionBuild.ts";
import { isOpenTile, localRegionIds, type RegionTable } from "./regions.ts";

/**
 * Returns the region table of `newLayer` given the table `old` of the layer before an edit of the half-open
 * rectangle [x0, x1) x [y0, y1) (the edited tiles, or the changed window updatePassLayer reports). Tiles up
 * to CAP_REACH around the rectangle are compared (their clearance may have changed); only sectors whose
 * open tiles changed are flood filled again, the others keep their regions, and the entrances, graph and
 * components are rebuilt (cheap). The result equals buildRegionTable(newLayer, ...) exactly, provided
 * nothing changed outside that reach. `old` is not modified.
 */
export function updateRegionTable(
  old: RegionTable,
  newLayer: PassLayer,
  x0: number,
  y0: number,
  x1: number,
  y1: number,
): RegionTable {
  const { width, height, sectorSize, sectorsX, sectorsY } = old;
  if (newLayer.width !== width || newLayer.height !== height) {
    throw new RangeError(
      `updateRegionTable: layer is ${newLayer.width}x${newLayer.height}, table is ${width}x${height}`,
    );
  }
  const threshold = old.clearanceClass;
  const { tileCost, clearanceCode } = newLayer;
  const thresholdCode = clearanceCodeAtLeast(threshold);
  const reach = clipRect(
    { x0: x0 - CAP_REACH, y0: y0 - CAP_REACH, x1: x1 + CAP_REACH, y1: y1 + CAP_REACH },
    width,
    height,
  );
  // Bounding box of tiles whose open status differs between the old table and the new layer.
  let cx0 = width, cy0 = height, cx1 = 0, cy1 = 0;
  for (let y = reach.y0; y < reach.y1; y++) {
    for (let x = reach.x0; x < reach.x1; x++) {
      const t = y * width + x;
      const open = tileCost[t] > 0 && clearanceCode[t] >= thresholdCode;
      if (open !== isOpenTile(old, t)) {
        if (x < cx0) cx0 = x;
        if (x >= cx1) cx1 = x + 1;
        if (y < cy0) cy0 = y;
        if (y >= cy1) cy1 = y + 1;
      }
    }
  }
  if (cx0 >= cx1) return { ...old };

  const dirty = new Uint8Array(sectorsX * sectorsY);
  // Clean sectors keep their local ids as they are (they do not depend on the sector's first region index).
  const regionLocal = localRegionIds(sectorSize, width * height);
  regionLocal.set(old.regionLocal);
  let dirtyTiles = 0;
  const sx0 = Math.floor(cx0 / sectorSize), sx1 = Math.floor((cx1 - 1) / sectorSize);
  const sy0 = Math.floor(cy0 / sectorSize), sy1 = Math.floor((cy1 - 1) / sectorSize);
  for (let sy = sy0; sy <= sy1; sy++) {
    for (let sx = sx0; sx <= sx1; sx++) {
      dirty[sy * sectorsX + sx] = 1;
      const tx0 = sx * sectorSize, tx1 = Math.min(width, tx0 + sectorSize);
      const ty0 = sy * sectorSize, ty1 = Math.min(height, ty0 + sectorSize);
      for (let y = ty0; y < ty1; y++) regionLocal.fill(old.closedLocal, y * width + tx0, y * width + tx1);
      dirtyTiles += (tx1 - tx0) * (ty1 - ty0);
    }
  }
  const sectors = labelSectors(
    newLayer,
    threshold,
    sectorSize,
    regionLocal,
    dirty,
    old,
    old.regionCount + dirtyTiles,
  );
  return linkRegions(width, height, threshold, sectorSize, regionLocal, sectors);
}
