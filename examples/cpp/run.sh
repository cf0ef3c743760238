#!/bin/sh
# Builds the C++ example (Release) with Debian's gRPC (cmake, g++, pkg-config, libgrpc++-dev,
# protobuf-compiler-grpc, libprotobuf-dev) into $BUILD_DIR (default examples/cpp/build), then runs it against
# HOST:PORT (default 127.0.0.1:50051). Rebuilds only what changed.
set -e
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${BUILD_DIR:-$HERE/build}
mkdir -p "$OUT"
cmake -S "$HERE" -B "$OUT" -DCMAKE_BUILD_TYPE=Release > "$OUT/cmake.log" 2>&1 || { cat "$OUT/cmake.log"; exit 1; }
cmake --build "$OUT" -j 2 > "$OUT/build.log" 2>&1 || { tail -50 "$OUT/build.log"; exit 1; }
exec "$OUT/example" "$@"
