/**
 * Explicit presence of the UnitProfile fields with a meaningful 0 or false, on the real wire codec: a client
 * built from the contract as it was before (plain proto3 fields, a zero is never sent) keeps its meaning, and a
 * client of the current contract can override a profile's value with 0 or false.
 */
import { describe, expect, test } from "vitest";
import * as protoLoader from "@grpc/proto-loader";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LOADER_OPTIONS, loadPackageDefinition } from "../../src/server/proto.ts";
import { decodeUnit, type WireUnitProfile } from "../../src/server/decodeUnit.ts";

// deno-lint-ignore no-explicit-any
type Codec = { serialize: (m: any) => Uint8Array; deserialize: (b: Uint8Array) => any };

/** The UnitProfile message as the contract declared it before explicit presence (same field numbers). */
const OLD_PROTO = `syntax = "proto3";
package old;
message UnitProfile {
  string name = 1; double radius = 2; double width = 3; double length = 4; double turning_radius = 5;
  bool can_reverse = 6; double reverse_penalty = 7; double turn_penalty = 8; double max_speed = 9;
  double acceleration = 10; double deceleration = 11; double lateral_acceleration = 12; uint32 headings = 13;
  bool fluid_turning = 15; double cusp_penalty = 16;
}`;

function oldCodec(): Codec {
  const dir = mkdtempSync(join(tmpdir(), "arcpath-old-proto-"));
  writeFileSync(join(dir, "old.proto"), OLD_PROTO);
  const def = protoLoader.loadSync("old.proto", { ...LOADER_OPTIONS, includeDirs: [dir] });
  return def["old.UnitProfile"] as unknown as Codec;
}

const current = loadPackageDefinition()["arcpath.v1.UnitProfile"] as unknown as Codec;

/** What the server decodes from a message a client encoded with `codec`. */
function serverSees(codec: Codec, unit: object) {
  return decodeUnit(current.deserialize(codec.serialize(unit)) as WireUnitProfile);
}

describe("UnitProfile explicit presence on the wire", () => {
  const zeros = {
    name: "tank",
    turning_radius: 0,
    can_reverse: false,
    turn_penalty: 0,
    cusp_penalty: 0,
    max_speed: 0,
    headings: 0,
  };

  test("an old client's messages keep their meaning: values read the same, omitted fields keep the profile", () => {
    // Plain proto3 encoders omit zeros; the fields they do send are read the same under explicit presence.
    const old = oldCodec();
    const sent = serverSees(old, { name: "tank", turning_radius: 2.5, can_reverse: true, cusp_penalty: 3 });
    expect(sent.turningRadius).toBe(2.5);
    expect(sent.canReverse).toBe(true);
    expect(sent.cuspPenalty).toBe(3);
    const omitted = serverSees(old, { name: "tank", radius: 0.5 });
    expect(omitted.turningRadius).toBe(1.5);
    expect(omitted.canReverse).toBe(true);
    expect(omitted.maxSpeed).toBe(4);
    // protobufjs (and so @grpc/proto-loader) writes a scalar that is present on the object even when it is 0:
    // such a client's explicit 0 now reaches the server as a value (the README says so).
    expect(serverSees(old, zeros).turningRadius).toBe(0);
  });

  test("a current client's explicit zeros and false override the profile", () => {
    const u = serverSees(current, zeros);
    expect(u.turningRadius).toBe(0);
    expect(u.canReverse).toBe(false);
    expect(u.cuspPenalty).toBe(0);
    expect(u.maxSpeed).toBe(0);
    expect(u.headings).toBe(0);
  });

  test("unset fields keep the profile, set ones are range-checked including 0", () => {
    const u = serverSees(current, { name: "truck" });
    expect(u.reversePenalty).toBe(3);
    expect(u.turningRadius).toBe(4);
    expect(() => serverSees(current, { name: "truck", reverse_penalty: 0 })).toThrow(
      /unit\.reverse_penalty: must be in \[1, 100\], got 0/,
    );
    expect(() => serverSees(current, { name: "soldier", headings: 12 })).toThrow(/unit\.headings/);
  });
});
