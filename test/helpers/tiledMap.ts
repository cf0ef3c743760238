/**
 * A tiled test map for long turning-unit queries: square rooms of `cell` tiles joined by 8-wide doors in the
 * middle of every wall, each room with a 4 x 4 pillar, `nx` rooms across and `ny` down (Moving AI rows).
 */
export function tiledRoomRows(nx: number, ny: number, cell = 32): string[] {
  const w = nx * cell, h = ny * cell;
  return Array.from({ length: h }, (_, y) =>
    Array.from({ length: w }, (_, x) => {
      if (x === 0 || y === 0 || x === w - 1 || y === h - 1) return "@";
      const cx = x % cell, cy = y % cell;
      const mid = cell / 2;
      if (cy === 0 && !(cx >= mid - 4 && cx < mid + 4)) return "@";
      if (cx === 0 && !(cy >= mid - 4 && cy < mid + 4)) return "@";
      if (cx >= 6 && cx < 10 && cy >= cell - 10 && cy < cell - 6) return "@";
      return ".";
    }).join(""));
}
