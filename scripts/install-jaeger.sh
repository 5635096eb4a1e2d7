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

install_go_tool "$root" jaeger "$VERSION" github.com/jaegertracing/jaeger ./cmd/jaeger
