/**
 * The Plan hot path's caches give exactly what the uncached code gives: the default unit (a request with no
 * unit) is decoded once and equals a freshly decoded empty profile; the wire UnitProfile of the last unit is
 * reused only for that same unit object.
 */
import { describe, expect, test } from "vitest";
import { decodeUnit } from "../../src/server/decodeUnit.ts";
import { unitToWire } from "../../src/server/wire.ts";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";

describe("hot path caches", () => {
  test("a request without a unit decodes to the default profile, once", () => {
    const a = decodeUnit(null), b = decodeUnit(undefined);
    expect(a).toBe(b);
    expect(a).toEqual(decodeUnit({}));
    expect(a.name).toBe("agent");
    // A unit that sets something is decoded afresh.
    const tank = decodeUnit({ name: "tank" });
    expect(tank).not.toBe(a);
    expect(tank.name).toBe("tank");
  });

  test("the wire unit follows the unit object it is asked for", () => {
    const agent = decodeUnit(null);
    const w1 = unitToWire(agent);
    expect(unitToWire(agent)).toBe(w1);
    const tank = unitToWire(BUILTIN_PROFILES.tank);
    expect(tank.name).toBe("tank");
    expect(tank.turning_radius).toBe(BUILTIN_PROFILES.tank.turningRadius);
    // Switching back gives the agent's shape again (equal, whether or not the same object).
    expect(unitToWire(agent)).toEqual(w1);
    expect(unitToWire(agent).name).toBe("agent");
  });
});
