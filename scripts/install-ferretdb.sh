#!/usr/bin/env bash
# Builds FerretDB v1.24.2 (our embedded MongoDB-protocol engine, design.md §8) into
# .tools/bin/ferretdb with the local Go toolchain, unless one is already there or on PATH.
#
# `go install ...@v1.24.2` is not usable everywhere: it asks the module proxy for the
# module's version list to check deprecation, and some proxies refuse that. So we
# download exactly this version, copy its source to a scratch dir, write the version
# file its build expects (FerretDB panics at start-up without it) and build that.
set -euo pipefail

VERSION=v1.24.2
root="$(cd "$(dirname "$0")/.." && pwd)"
bin_dir="$root/.tools/bin"
target="$bin_dir/ferretdb"

if [ -x "$target" ]; then echo "$target"; exit 0; fi
if command -v ferretdb >/dev/null 2>&1; then command -v ferretdb; exit 0; fi
if ! command -v go >/dev/null 2>&1; then
  echo "install-ferretdb: Go is not installed; set MONGODB_URI to an existing MongoDB instead" >&2
  exit 1
fi

export GOTOOLCHAIN=local GOFLAGS=-mod=mod DO_NOT_TRACK=1
module_dir="$(go mod download -json "github.com/FerretDB/FerretDB@$VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
if [ -z "$module_dir" ] || [ ! -d "$module_dir" ]; then
  echo "install-ferretdb: could not download FerretDB $VERSION" >&2
  exit 1
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp -r "$module_dir/." "$work/src"
chmod -R u+w "$work/src"
echo "$VERSION" > "$work/src/build/version/version.txt"
mkdir -p "$bin_dir"
(cd "$work/src" && go build -trimpath -o "$target.tmp" ./cmd/ferretdb)
mv "$target.tmp" "$target"
echo "$target"
