#!/usr/bin/env bash
# Regenerates shared/gen/ from proto/ with protoc and ts-proto. Usage: gen-proto.sh [OUT_DIR]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:-$root/shared/gen}
if ! command -v protoc >/dev/null 2>&1; then
  echo "gen-proto: protoc is missing; install Debian's protobuf-compiler (apt-get install protobuf-compiler)" >&2
  exit 1
fi
plugin="$root/node_modules/.bin/protoc-gen-ts_proto"
[[ -x "$plugin" ]] || { echo "gen-proto: ts-proto is missing; run npm ci" >&2; exit 1; }
# The plugin is a Node script; put the project's Node first so it runs on the pinned version.
export PATH="$root/node_modules/.bin:$PATH"
rm -rf "$out"
mkdir -p "$out"
opts=(
  outputServices=grpc-js
  env=node
  esModuleInterop=true
  importSuffix=.ts
  enumsAsLiterals=true
  oneof=unions-value
  useOptionals=none
  annotateFilesWithVersion=false
  useDate=false
  forceLong=number
)
cd "$root/proto"
protoc --plugin=protoc-gen-ts_proto="$plugin" --ts_proto_out="$out" \
  --ts_proto_opt="$(IFS=,; echo "${opts[*]}")" \
  $(find . -name '*.proto' | sed 's|^\./||' | sort)
