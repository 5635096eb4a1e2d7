#!/usr/bin/env bash
# Builds Jaeger (the trace backend `npm start` runs with QUIRE_TRACING=1, and the tracing suite
# uses) with the local Go toolchain into the shared tool cache (scripts/lib/tool-cache.sh: once per
# version for every clone of the machine), unless it is there already or a jaeger is on PATH, and
# links it as .tools/bin/jaeger. The last line printed is the binary's path. Like FerretDB's, the
# build takes one exact version of the module's source, never the proxy's version list.
set -euo pipefail

VERSION=v1.76.0
root="$(cd "$(dirname "$0")/.." && pwd)"
source "$root/scripts/lib/tool-cache.sh"

link() {
  mkdir -p "$root/.tools/bin"
  ln -sfn "$1" "$root/.tools/bin/jaeger"
  echo "$1"
}

if cached="$(cached_tool_path jaeger "$VERSION")"; then link "$cached"; exit 0; fi
if command -v jaeger >/dev/null 2>&1; then command -v jaeger; exit 0; fi
if ! command -v go >/dev/null 2>&1; then
  echo "install-jaeger: Go is not installed" >&2
  exit 1
fi

echo "install-jaeger: building Jaeger $VERSION with $(go version)" >&2
module_dir="$(go_module_source github.com/jaegertracing/jaeger "$VERSION")" || {
  echo "install-jaeger: could not download Jaeger $VERSION" >&2
  exit 1
}
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp -r "$module_dir/." "$work/src"
chmod -R u+w "$work/src"
(cd "$work/src" && GOTOOLCHAIN=local GOFLAGS=-mod=mod DO_NOT_TRACK=1 CGO_ENABLED=0 go build -trimpath -o "$work/jaeger" ./cmd/jaeger)
link "$(store_tool jaeger "$VERSION" "$work/jaeger")"
