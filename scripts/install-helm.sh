#!/usr/bin/env bash
# Installs the helm CLI, built from source with the local Go toolchain into the shared tool
# cache (scripts/lib/tool-cache.sh: once per version for every clone of the machine), unless a
# helm is already on PATH or in the cache. Idempotent. The last line printed is the path of the
# helm binary to use.
#
# Why not `go install helm.sh/helm/v3/cmd/helm@VERSION`? It asks the module proxy
# for the version list (@v/list), which may be refused here. `go mod download`
# of one exact version only needs .info/.mod/.zip, so we download and build that.
#
# Environment:
#   HELM_VERSION      helm v3 version to build (default v3.16.4). If its go.mod
#                     needs a newer Go than `go version`, pick an older v3 release.
#   HELM_FORCE_LOCAL  set to 1 to ignore a helm on PATH and use/build the cached one
set -euo pipefail

HELM_VERSION="${HELM_VERSION:-v3.16.4}"
source "$(dirname "$0")/lib/tool-cache.sh"

log() { printf '[install-helm] %s\n' "$*" >&2; }

if [[ "${HELM_FORCE_LOCAL:-0}" != "1" ]] && command -v helm >/dev/null 2>&1; then
  command -v helm
  exit 0
fi

if cached_tool_path helm "$HELM_VERSION"; then exit 0; fi

if ! command -v go >/dev/null 2>&1; then
  log "helm not found and no Go toolchain to build it; install Go or helm first"
  exit 1
fi

log "building helm $HELM_VERSION from source with $(go version)"
src_dir="$(go_module_source helm.sh/helm/v3 "$HELM_VERSION")" || {
  log "could not download helm.sh/helm/v3@${HELM_VERSION}"
  exit 1
}
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The module cache is read-only; -mod=mod lets go resolve/verify deps without
# writing go.mod/go.sum into it. Output goes outside the module cache.
(
  cd "$src_dir"
  GOTOOLCHAIN=local GOFLAGS=-mod=mod go build -trimpath \
    -ldflags "-s -w -X helm.sh/helm/v3/internal/version.version=${HELM_VERSION} -X helm.sh/helm/v3/internal/version.gitTreeState=clean" \
    -o "$work/helm" ./cmd/helm
)
helm="$(store_tool helm "$HELM_VERSION" "$work/helm")"
log "installed $("$helm" version --short 2>/dev/null || echo "$HELM_VERSION")"
echo "$helm"
