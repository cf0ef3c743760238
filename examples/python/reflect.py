"""Calls arcpath with no stubs and no .proto file, through server reflection only (a small grpcurl).

Usage:
  python3 reflect.py HOST:PORT list                      every service the server serves
  python3 reflect.py HOST:PORT describe SERVICE          its methods, with the proto's comments
  python3 reflect.py HOST:PORT call SERVICE/METHOD JSON  a unary call; JSON in, proto JSON out (.proto names)

With authentication on (--auth-tokens, --auth-jwks), set ARCPATH_TOKEN: calls send it as a bearer token.
Needs only Debian's python3-grpcio and python3-protobuf (use /usr/bin/python3). Every file the server
serves is loaded into a protobuf descriptor pool, which checks descriptors as strictly as protoc and grpcurl
do, so this also shows that generic tools can use the server's reflection.
"""

import json
import os
import sys

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool, json_format, message_factory

F = descriptor_pb2.FieldDescriptorProto


def _reflection_messages():
    """grpc.reflection.v1's request and response, the fields this client uses (built here: no protoc)."""
    f = descriptor_pb2.FileDescriptorProto(name="arcpath_example/reflection_subset.proto",
                                           package="grpc.reflection.v1", syntax="proto3")

    def message(name, fields, oneof=None):
        m = f.message_type.add(name=name)
        if oneof:
            m.oneof_decl.add(name=oneof)
        for number, fname, ftype, label, type_name, in_oneof in fields:
            fd = m.field.add(name=fname, number=number, type=ftype, label=label)
            if type_name:
                fd.type_name = ".grpc.reflection.v1." + type_name
            if in_oneof:
                fd.oneof_index = 0

    one, many = F.LABEL_OPTIONAL, F.LABEL_REPEATED
    message("ServerReflectionRequest", [
        (3, "file_by_filename", F.TYPE_STRING, one, None, True),
        (4, "file_containing_symbol", F.TYPE_STRING, one, None, True),
        (7, "list_services", F.TYPE_STRING, one, None, True),
    ], oneof="message_request")
    message("FileDescriptorResponse", [(1, "file_descriptor_proto", F.TYPE_BYTES, many, None, False)])
    message("ServiceResponse", [(1, "name", F.TYPE_STRING, one, None, False)])
    message("ListServiceResponse", [(1, "service", F.TYPE_MESSAGE, many, "ServiceResponse", False)])
    message("ErrorResponse", [(1, "error_code", F.TYPE_INT32, one, None, False),
                              (2, "error_message", F.TYPE_STRING, one, None, False)])
    message("ServerReflectionResponse", [
        (4, "file_descriptor_response", F.TYPE_MESSAGE, one, "FileDescriptorResponse", True),
        (6, "list_services_response", F.TYPE_MESSAGE, one, "ListServiceResponse", True),
        (7, "error_response", F.TYPE_MESSAGE, one, "ErrorResponse", True),
    ], oneof="message_response")
    pool = descriptor_pool.DescriptorPool()
    pool.Add(f)
    return (_message_class(pool.FindMessageTypeByName("grpc.reflection.v1.ServerReflectionRequest")),
            _message_class(pool.FindMessageTypeByName("grpc.reflection.v1.ServerReflectionResponse")))


def _message_class(descriptor):
    # protobuf >= 4.22 has GetMessageClass; Debian 12's 3.21 only the (since deprecated) factory.
    get = getattr(message_factory, "GetMessageClass", None)
    return get(descriptor) if get else message_factory.MessageFactory().GetPrototype(descriptor)


class Reflection:
    """One reflection conversation per question, over one channel."""

    def __init__(self, channel):
        self.Request, self.Response = _reflection_messages()
        self.info = channel.stream_stream("/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
                                          request_serializer=self.Request.SerializeToString,
                                          response_deserializer=self.Response.FromString)
        self.pool = descriptor_pool.DescriptorPool()
        self.files = {}  # name -> FileDescriptorProto, every file loaded so far

    def ask(self, **question):
        answer = next(iter(self.info(iter([self.Request(**question)]), timeout=10)))
        if answer.HasField("error_response"):
            raise SystemExit("reflection: %s (%s)" % (answer.error_response.error_message, question))
        return answer

    def services(self):
        return [s.name for s in self.ask(list_services="").list_services_response.service]

    def load(self, symbol):
        """Loads the file defining symbol and its imports into the pool (which validates them)."""
        files = {}
        for raw in self.ask(file_containing_symbol=symbol).file_descriptor_response.file_descriptor_proto:
            fd = descriptor_pb2.FileDescriptorProto.FromString(raw)
            files[fd.name] = fd

        def add(fd):
            if fd.name in self.files:
                return
            for dep in fd.dependency:
                if dep not in files:
                    for raw in self.ask(file_by_filename=dep).file_descriptor_response.file_descriptor_proto:
                        d = descriptor_pb2.FileDescriptorProto.FromString(raw)
                        files[d.name] = d
                add(files[dep])
            self.pool.Add(fd)
            self.files[fd.name] = fd

        for fd in list(files.values()):
            add(fd)
        return self.pool.FindServiceByName(symbol)


def comments(fd):
    """Leading comments by descriptor path, as protoc stores them in source code info."""
    return {tuple(loc.path): loc.leading_comments.strip() for loc in fd.source_code_info.location}


def main(argv):
    if len(argv) < 2 or argv[1] not in ("list", "describe", "call"):
        raise SystemExit(__doc__)
    channel = grpc.insecure_channel(argv[0])
    refl = Reflection(channel)
    if argv[1] == "list":
        print("\n".join(refl.services()))
    elif argv[1] == "describe":
        service = refl.load(argv[2])
        fd = refl.files[service.file.name]
        notes = comments(fd)
        index = [s.name for s in fd.service].index(service.name)
        print("%s (file %s)" % (service.full_name, service.file.name))
        for i, m in enumerate(service.methods):
            doc = notes.get((6, index, 2, i), "").split("\n")[0]
            print("  rpc %s(%s) returns (%s)  // %s" % (m.name, m.input_type.full_name,
                                                       m.output_type.full_name, doc))
    else:
        service_name, method_name = argv[2].rsplit("/", 1)
        method = refl.load(service_name).methods_by_name.get(method_name)
        if method is None:
            raise SystemExit("%s has no method %s" % (service_name, method_name))
        if method.client_streaming or method.server_streaming:
            raise SystemExit("%s is a streaming method; this client calls unary methods only" % argv[2])
        Req, Res = _message_class(method.input_type), _message_class(method.output_type)
        call = channel.unary_unary("/%s/%s" % (service_name, method_name),
                                   request_serializer=Req.SerializeToString, response_deserializer=Res.FromString)
        try:
            request = json_format.Parse(argv[3] if len(argv) > 3 else "{}", Req())
        except json_format.ParseError as e:
            raise SystemExit("request JSON for %s: %s" % (method.input_type.full_name, e))
        token = os.environ.get("ARCPATH_TOKEN")
        metadata = [("authorization", "Bearer " + token)] if token else None
        try:
            response = call(request, timeout=60, metadata=metadata)
        except grpc.RpcError as e:
            raise SystemExit("%s: %s" % (e.code().name, e.details()))
        print(json.dumps(json_format.MessageToDict(response, preserving_proto_field_name=True), indent=2))


if __name__ == "__main__":
    main(sys.argv[1:])
