/**
 * A reflection-only client, as grpcurl or grpcui is: it knows no .proto file, lists the services over server
 * reflection, fetches the file of grpc.health.v1.Health by symbol, builds a client from that descriptor alone
 * and calls Check; and it finds arcpath's file under its real name with its options and field comments.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import protobuf from "protobufjs";
import { createRequire } from "node:module";
import { startServer, type TestServer } from "../helpers/server.ts";

const require = createRequire(import.meta.url);
// deno-lint-ignore no-explicit-any
type Any = any;

let srv: TestServer;
let reflection: Any;
beforeAll(async () => {
  srv = await startServer();
  // Only the reflection protocol itself is known to this client.
  const def = protoLoader.loadSync(
    require.resolve("@grpc/reflection/build/proto/grpc/reflection/v1/reflection.proto"),
    { keepCase: true, oneofs: true, bytes: Buffer },
  );
  const Reflection = (grpc.loadPackageDefinition(def) as Any).grpc.reflection.v1.ServerReflection;
  reflection = new Reflection(`127.0.0.1:${srv.port}`, grpc.credentials.createInsecure());
}, 120_000);
afterAll(async () => {
  reflection?.close();
  await srv?.stop();
});

/** One reflection request and its answer. */
function ask(request: Record<string, unknown>): Promise<Any> {
  return new Promise((resolve, reject) => {
    const call = reflection.ServerReflectionInfo();
    call.on("data", (r: Any) => {
      resolve(r);
      call.end();
    });
    call.on("error", reject);
    call.write(request);
  });
}

const FileDescriptorProto = protobuf.Root.fromJSON(require("protobufjs/google/protobuf/descriptor.json"))
  .lookupType("google.protobuf.FileDescriptorProto");

test("reflection lists every service", async () => {
  const r = await ask({ list_services: "" });
  const names = r.list_services_response.service.map((s: Any) => s.name).sort();
  expect(names).toEqual([
    "arcpath.v1.Pathfinder",
    "grpc.health.v1.Health",
    "grpc.reflection.v1.ServerReflection",
    "grpc.reflection.v1alpha.ServerReflection",
  ]);
});

test("a client built from reflection alone calls grpc.health.v1.Health", async () => {
  const r = await ask({ file_containing_symbol: "grpc.health.v1.Health" });
  const files: Buffer[] = r.file_descriptor_response.file_descriptor_proto;
  const names = files.map((b) => (FileDescriptorProto.decode(b) as Any).name);
  expect(names).toContain("grpc/health/v1/health.proto");
  // A FileDescriptorSet is its files as field 1: build the client from those bytes only.
  const set = protobuf.Writer.create();
  for (const b of files) set.uint32(10).bytes(b);
  const def = protoLoader.loadFileDescriptorSetFromBuffer(Buffer.from(set.finish()), { enums: String });
  const Health = (grpc.loadPackageDefinition(def) as Any).grpc.health.v1.Health;
  const health = new Health(`127.0.0.1:${srv.port}`, grpc.credentials.createInsecure());
  const answer = await new Promise<Any>((resolve, reject) =>
    health.Check(
      { service: "arcpath.v1.Pathfinder" },
      (e: Error | null, res: Any) => e ? reject(e) : resolve(res),
    )
  );
  health.close();
  expect(answer.status).toBe("SERVING");
});

test("arcpath's file has its real name, its options and its comments", async () => {
  const r = await ask({ file_containing_symbol: "arcpath.v1.PlanRequest" });
  const files = r.file_descriptor_response.file_descriptor_proto.map((b: Buffer) =>
    FileDescriptorProto.decode(b)
  );
  const file = files.find((f: Any) => f.package === "arcpath.v1") as Any;
  expect(file.name).toBe("arcpath/v1/arcpath.proto");
  expect(file.options.go_package ?? file.options.goPackage).toBe("arcpath.dev/arcpath/v1;arcpathv1");
  expect(file.options.csharp_namespace ?? file.options.csharpNamespace).toBe("Arcpath.V1");
  // The comment of PlanResponse.cost, found by its descriptor path (message_type = 4, field = 2).
  const m = file.messageType.findIndex((t: Any) => t.name === "PlanResponse");
  const f = file.messageType[m].field.findIndex((x: Any) => x.name === "cost");
  const loc = file.sourceCodeInfo.location.find((l: Any) => l.path.join(",") === `4,${m},2,${f}`);
  expect(loc?.leadingComments).toContain("The unit's cost of `segments` by the one cost model");
  const s = file.service.findIndex((x: Any) => x.name === "Pathfinder");
  const svc = file.sourceCodeInfo.location.find((l: Any) => l.path.join(",") === `6,${s}`);
  expect(svc?.leadingComments).toContain("The pathfinding service.");
  // The file by name answers too (how grpcurl follows dependencies).
  const byName = await ask({ file_by_filename: "arcpath/v1/arcpath.proto" });
  expect(byName.file_descriptor_response.file_descriptor_proto.length).toBeGreaterThan(0);
});
