#!/bin/sh
# Generates the Python stubs (Debian: protobuf-compiler-grpc, python3-grpcio, python3-protobuf) into
# $BUILD_DIR (default examples/python/build) and runs the example against HOST:PORT (default 127.0.0.1:50051).
set -e
HERE=$(cd "$(dirname "$0")" && pwd)
PROTO=$(cd "$HERE/../../proto" && pwd)
OUT=${BUILD_DIR:-$HERE/build}
mkdir -p "$OUT"
protoc -I"$PROTO" --python_out="$OUT" --grpc_python_out="$OUT" \
  --plugin=protoc-gen-grpc_python="$(command -v grpc_python_plugin)" arcpath/v1/arcpath.proto
PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$OUT:$HERE" exec /usr/bin/python3 "$HERE/example.py" "$@"
