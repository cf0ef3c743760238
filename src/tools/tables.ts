/**
 * `deno task tables`: regenerates tables/ — the hit-check and heuristic tables of the built-in profiles that
 * have a turning radius, for Directional-8, -24 (the service default) and -48 (AUTO), with a progress bar on
 * stderr. Files are `<key>.bin.gz` (see src/search/hitCheckTable.ts for the packed format).
 *
 * @module
 */
import type { DirectionalNeighborhood } from "../search/directionTable.ts";
import type { TableProfile } from "../search/hitCheckTable.ts";
import { BUILTIN_PROFILES } from "../units/profiles.ts";
import { tableBytes, tableProfileOf } from "../planning/directional.ts";
import { compressTables, TABLE_DIR, tableFileName } from "../service/directionalTables.ts";
import { parseCli } from "./cli.ts";

/** Neighbourhoods whose tables are committed (48: AUTO's portfolio, loaded at worker warm-up). */
export const COMMITTED_NEIGHBORHOODS: readonly DirectionalNeighborhood[] = [8, 24, 48];

/** The profiles whose tables are committed: every built-in unit with a turning radius, per neighbourhood. */
export function committedProfiles(): { name: string; profile: TableProfile }[] {
  const out: { name: string; profile: TableProfile }[] = [];
  for (const [name, unit] of Object.entries(BUILTIN_PROFILES)) {
    if (!(unit.turningRadius > 0)) continue;
    for (const n of COMMITTED_NEIGHBORHOODS) out.push({ name, profile: tableProfileOf(unit, n) });
  }
  return out;
}

function bar(label: string, done: number, total: number): void {
  const width = 30;
  const fill = Math.round((width * done) / total);
  const text = `\r${label.padEnd(44)} [${"#".repeat(fill)}${"-".repeat(width - fill)}] ${done}/${total}`;
  Deno.stderr.writeSync(new TextEncoder().encode(text));
}

/** Writes every committed table into `dir`; returns the file names. */
export function generateTables(dir: URL = TABLE_DIR): string[] {
  Deno.mkdirSync(dir, { recursive: true });
  const names: string[] = [];
  for (const { name, profile } of committedProfiles()) {
    const file = tableFileName(profile);
    const label = `${name} D-${profile.neighborhood}`;
    const bytes = compressTables(tableBytes(profile, (d, t) => bar(label, d, t)));
    Deno.writeFileSync(new URL(file, dir), bytes);
    Deno.stderr.writeSync(new TextEncoder().encode(`  ${file} ${(bytes.length / 1024).toFixed(0)} KiB\n`));
    names.push(file);
  }
  return names;
}

if (import.meta.main) {
  parseCli({
    usage: "deno task tables",
    about:
      "Regenerates tables/: the directional hit-check and heuristic tables of the built-in profiles with a " +
      "turning radius (Directional-8, -24 and -48). Takes no flags; minutes of CPU.",
  }, { args: Deno.args, options: {} });
  generateTables();
}
