/**
 * What server reflection serves: every service the server runs (arcpath.v1.Pathfinder, grpc.health.v1.Health
 * and the reflection services themselves), each file under its real name (`arcpath/v1/arcpath.proto`, not the
 * `arcpath_v1.proto` @grpc/proto-loader makes up) with its options and its comments as source code info, so
 * generic tools (grpcurl, grpcui, Postman) can list, describe with field docs, and call every service.
 *
 * @module
 */
import * as protoLoader from "@grpc/proto-loader";
import protobuf from "protobufjs";
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PROTO_ROOT } from "./proto.ts";

const require = createRequire(import.meta.url);

/** One .proto file reflection serves: its canonical name and where it is on disk. */
interface ProtoFile {
  /** The name clients see and import it by. */
  name: string;
  /** Absolute path of the file. */
  path: string;
}

/** The files of every service the server runs. */
function servedFiles(): ProtoFile[] {
  const reflection = (v: string) =>
    require.resolve(`@grpc/reflection/build/proto/grpc/reflection/${v}/reflection.proto`);
  return [
    { name: "arcpath/v1/arcpath.proto", path: join(PROTO_ROOT, "arcpath/v1/arcpath.proto") },
    {
      name: "grpc/health/v1/health.proto",
      path: require.resolve("grpc-health-check/proto/health/v1/health.proto"),
    },
    { name: "grpc/reflection/v1/reflection.proto", path: reflection("v1") },
    { name: "grpc/reflection/v1alpha/reflection.proto", path: reflection("v1alpha") },
  ];
}

/** google.protobuf.FileDescriptorProto, to decode what proto-loader builds and encode what we serve. */
function fileDescriptorType(): protobuf.Type {
  const json = require("protobufjs/google/protobuf/descriptor.json");
  return protobuf.Root.fromJSON(json).lookupType("google.protobuf.FileDescriptorProto");
}

// deno-lint-ignore no-explicit-any
type Any = any;

/** A comment as protoc stores it: every line with its leading space, each ending in a newline. */
function protocComment(text: string | null | undefined): string | undefined {
  if (!text) return undefined;
  return text.split("\n").map((line) => ` ${line}`.replace(/\s+$/, "")).join("\n") + "\n";
}

/**
 * Source code info from the parsed file's comments, for the descriptor's messages, fields, oneofs, enums,
 * values, services and methods (paths as descriptor.proto numbers them). Spans are not known to the parser:
 * every location says line 0 (tools show comments by path, not by span).
 */
function sourceCodeInfo(file: Any, parsed: protobuf.Root): Any {
  const locations: Any[] = [];
  const add = (path: number[], comment: string | null | undefined) => {
    const leadingComments = protocComment(comment);
    if (leadingComments) locations.push({ path, span: [0, 0, 0], leadingComments });
  };
  const enumInfo = (e: Any, fqn: string, path: number[]) => {
    const en = parsed.lookupEnum(fqn);
    add(path, en.comment);
    (e.value ?? []).forEach((v: Any, i: number) => add([...path, 2, i], en.comments[v.name]));
  };
  const messageInfo = (m: Any, fqn: string, path: number[]) => {
    const type = parsed.lookupType(fqn);
    add(path, type.comment);
    (m.field ?? []).forEach((f: Any, i: number) => add([...path, 2, i], type.fields[f.name]?.comment));
    (m.oneofDecl ?? []).forEach((o: Any, i: number) => add([...path, 8, i], type.oneofs?.[o.name]?.comment));
    (m.nestedType ?? []).forEach((n: Any, i: number) => {
      if (!n.options?.mapEntry) messageInfo(n, `${fqn}.${n.name}`, [...path, 3, i]);
    });
    (m.enumType ?? []).forEach((e: Any, i: number) => enumInfo(e, `${fqn}.${e.name}`, [...path, 4, i]));
  };
  const pkg = file.package ? `${file.package}.` : "";
  (file.messageType ?? []).forEach((m: Any, i: number) => messageInfo(m, pkg + m.name, [4, i]));
  (file.enumType ?? []).forEach((e: Any, i: number) => enumInfo(e, pkg + e.name, [5, i]));
  (file.service ?? []).forEach((s: Any, i: number) => {
    const service = parsed.lookupService(pkg + s.name);
    add([6, i], service.comment);
    (s.method ?? []).forEach((m: Any, j: number) => add([6, i, 2, j], service.methods[m.name]?.comment));
  });
  return { location: locations };
}

/** The name protoc gives a map field's entry type: `statuses` -> `StatusesEntry`, `by_id` -> `ByIdEntry`. */
function mapEntryName(field: string): string {
  return field.replace(/^[a-z]/, (c) => c.toUpperCase()).replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase()) +
    "Entry";
}

/**
 * Renames map entry types as protoc does. protobufjs names them after the field (`Statuses`), and strict
 * descriptor builders (grpcurl's Go protobuf, Python's and C++'s descriptor pools) refuse such a file, so a
 * generic tool could not even describe grpc.health.v1.Health.
 */
function nameMapEntries(messages: Any[]): void {
  for (const m of messages) {
    for (const n of m.nestedType ?? []) {
      if (!n.options?.mapEntry) continue;
      const field = (m.field ?? []).find((f: Any) =>
        f.typeName === n.name || f.typeName?.endsWith(`.${n.name}`)
      );
      if (!field) continue;
      const name = mapEntryName(field.name);
      field.typeName = field.typeName.slice(0, field.typeName.length - n.name.length) + name;
      n.name = name;
    }
    nameMapEntries((m.nestedType ?? []).filter((n: Any) => !n.options?.mapEntry));
  }
}

/** The encoded FileDescriptorProto of one file: proto-loader's descriptor, renamed, with comments. */
function describeFile(type: protobuf.Type, spec: ProtoFile): Uint8Array {
  const text = readFileSync(spec.path, "utf8");
  const parsed = protobuf.parse(text, { keepCase: true, alternateCommentMode: true });
  const definition = protoLoader.loadSync(spec.path, { keepCase: true });
  const encoded = Object.values(definition).find((d: Any) => Array.isArray(d.fileDescriptorProtos)) as Any;
  const files = (encoded?.fileDescriptorProtos ?? []).map((b: Uint8Array) => type.decode(b) as Any);
  const file = files.find((f: Any) => f.package === parsed.package);
  if (!file) throw new Error(`reflection: no descriptor for package ${parsed.package} in ${spec.path}`);
  file.name = spec.name;
  file.dependency = [];
  nameMapEntries(file.messageType ?? []);
  file.sourceCodeInfo = sourceCodeInfo(file, parsed.root);
  return type.encode(file).finish();
}

/**
 * A package definition for @grpc/reflection's ReflectionService holding the served files: it reads only
 * `fileDescriptorProtos` and indexes every service in them.
 */
export function reflectionDefinition(): protoLoader.PackageDefinition {
  const type = fileDescriptorType();
  const fileDescriptorProtos = servedFiles().map((spec) => describeFile(type, spec));
  return { "arcpath.reflection": { fileDescriptorProtos } } as unknown as protoLoader.PackageDefinition;
}
