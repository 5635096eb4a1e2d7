#!/usr/bin/env bash
# Builds FerretDB v1.24.2 (our embedded MongoDB-protocol engine, design.md §8) with the local Go
# toolchain into the shared tool cache (scripts/lib/tool-cache.sh: once per version for every
# clone of the machine), unless it is there already or a ferretdb is on PATH, and links it as
# .tools/bin/ferretdb, where the datastore launcher looks first. The last line printed is the
# binary's path.
#
# `go install ...@v1.24.2` is not usable everywhere: it asks the module proxy for the
# module's version list to check deprecation, and some proxies refuse that. So we
# download exactly this version and build it (build_go_module_tool), with the version
# file its build expects written first.
set -euo pipefail

VERSION=v1.24.2
root="$(cd "$(dirname "$0")/.." && pwd)"
source "$root/scripts/lib/tool-cache.sh"

# FerretDB panics at start-up without the version file its build expects.
write_version() { echo "$VERSION" >"$1/build/version/version.txt"; }
install_go_tool "$root" ferretdb "$VERSION" github.com/FerretDB/FerretDB ./cmd/ferretdb write_version
