#!/usr/bin/env bash
# Builds oasdiff (the OpenAPI breaking-change check of `npm run lint`) with the local Go
# toolchain into the shared tool cache (scripts/lib/tool-cache.sh), unless it is there already.
# The last line printed is the binary's path.
set -euo pipefail

VERSION=v1.37.0
source "$(dirname "$0")/lib/tool-cache.sh"

if cached_tool_path oasdiff "$VERSION"; then exit 0; fi
if ! command -v go >/dev/null 2>&1; then
  echo "install-oasdiff: Go is not installed; it is needed once to build oasdiff $VERSION" >&2
  exit 1
fi

echo "install-oasdiff: building oasdiff $VERSION with $(go version)" >&2
source_dir="$(go_module_source github.com/oasdiff/oasdiff "$VERSION")" || {
  echo "install-oasdiff: could not download oasdiff $VERSION" >&2
  exit 1
}
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$source_dir" && GOTOOLCHAIN=local GOFLAGS=-mod=mod go build -trimpath -ldflags "-s -w -X github.com/oasdiff/oasdiff/build.Version=${VERSION#v}" -o "$work/oasdiff" .)
store_tool oasdiff "$VERSION" "$work/oasdiff"
