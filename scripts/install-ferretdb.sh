#!/usr/bin/env bash
# Builds FerretDB v1.24.2 (our embedded MongoDB-protocol engine, design.md §8) with the local Go
# toolchain into the shared tool cache (scripts/lib/tool-cache.sh: once per version for every
# clone of the machine), unless it is there already or a ferretdb is on PATH, and links it as
# .tools/bin/ferretdb, where the datastore launcher looks first. The last line printed is the
# binary's path.
#
# `go install ...@v1.24.2` is not usable everywhere: it asks the module proxy for the
# module's version list to check deprecation, and some proxies refuse that. So we
# download exactly this version, copy its source to a scratch dir, write the version
# file its build expects (FerretDB panics at start-up without it) and build that.
set -euo pipefail

VERSION=v1.24.2
root="$(cd "$(dirname "$0")/.." && pwd)"
source "$root/scripts/lib/tool-cache.sh"

link() {
  mkdir -p "$root/.tools/bin"
  ln -sfn "$1" "$root/.tools/bin/ferretdb"
  echo "$1"
}

if cached="$(cached_tool_path ferretdb "$VERSION")"; then link "$cached"; exit 0; fi
if command -v ferretdb >/dev/null 2>&1; then command -v ferretdb; exit 0; fi
if ! command -v go >/dev/null 2>&1; then
  echo "install-ferretdb: Go is not installed; set MONGODB_URI to an existing MongoDB instead" >&2
  exit 1
fi

echo "install-ferretdb: building FerretDB $VERSION with $(go version)" >&2
module_dir="$(go_module_source github.com/FerretDB/FerretDB "$VERSION")" || {
  echo "install-ferretdb: could not download FerretDB $VERSION" >&2
  exit 1
}
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp -r "$module_dir/." "$work/src"
chmod -R u+w "$work/src"
echo "$VERSION" > "$work/src/build/version/version.txt"
(cd "$work/src" && GOTOOLCHAIN=local GOFLAGS=-mod=mod DO_NOT_TRACK=1 go build -trimpath -o "$work/ferretdb" ./cmd/ferretdb)
link "$(store_tool ferretdb "$VERSION" "$work/ferretdb")"
