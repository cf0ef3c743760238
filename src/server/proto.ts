/**
 * Loads the arcpath .proto contract once, for the server and for the project's own clients (tests, bench).
 *
 * @module
 */
import * as protoLoader from "@grpc/proto-loader";
import * as grpc from "@grpc/grpc-js";
import { fileURLToPath } from "node:url";

/** Absolute path of the proto root directory. */
export const PROTO_ROOT = fileURLToPath(new URL("../../proto", import.meta.url));

/** The options every loader of the contract uses: field names as in the .proto, enums as strings. */
export const LOADER_OPTIONS: protoLoader.Options = {
  keepCase: true,
  longs: Number,
  enums: String,
  defaults: true,
  oneofs: true,
  includeDirs: [PROTO_ROOT],
};

/** Loads the package definition of arcpath.v1. */
export function loadPackageDefinition(): protoLoader.PackageDefinition {
  return protoLoader.loadSync("arcpath/v1/arcpath.proto", LOADER_OPTIONS);
}

/** The Pathfinder service definition and a client constructor. */
export function loadPathfinder(
  definition = loadPackageDefinition(),
): { service: grpc.ServiceDefinition; Client: grpc.ServiceClientConstructor } {
  // deno-lint-ignore no-explicit-any
  const pkg = grpc.loadPackageDefinition(definition) as any;
  const Client = pkg.arcpath.v1.Pathfinder as grpc.ServiceClientConstructor;
  return { service: Client.service, Client };
}
