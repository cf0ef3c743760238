#!/bin/sh
# Builds the Go example with Debian's packages, offline (golang-go, golang-google-grpc-dev,
# golang-google-protobuf-dev, protoc-gen-go, protoc-gen-go-grpc, protobuf-compiler): GOPATH mode over
# /usr/share/gocode, the stubs generated into $BUILD_DIR (default examples/go/build); then runs it against
# HOST:PORT (default 127.0.0.1:50051).
set -e
HERE=$(cd "$(dirname "$0")" && pwd)
PROTO=$(cd "$HERE/../../proto" && pwd)
OUT=${BUILD_DIR:-$HERE/build}
SRC="$OUT/gopath/src/arcpath.dev"
mkdir -p "$SRC/arcpath/v1" "$SRC/example"
# The example's sources, and the stubs at the import path go_package names (arcpath.dev/arcpath/v1).
cp "$HERE/main.go" "$SRC/example/" && mkdir -p "$SRC/example/follower" && cp "$HERE/follower/"*.go "$SRC/example/follower/"
protoc -I"$PROTO" --go_out="$OUT/gopath/src" --go-grpc_out="$OUT/gopath/src" arcpath/v1/arcpath.proto
export GO111MODULE=off GOPATH="$OUT/gopath:/usr/share/gocode" GOCACHE="${GOCACHE:-$OUT/gocache}"
go build -o "$OUT/example" arcpath.dev/example
exec "$OUT/example" "$@"
