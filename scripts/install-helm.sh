#!/usr/bin/env bash
# Installs the helm CLI into <repo>/.tools/bin/helm, built from source with the
# local Go toolchain, unless a helm is already on PATH or already installed there.
# Idempotent. The last line printed is the path of the helm binary to use.
#
# Why not `go install helm.sh/helm/v3/cmd/helm@VERSION`? It asks the module proxy
# for the version list (@v/list), which may be refused here. `go mod download`
# of one exact version only needs .info/.mod/.zip, so we download and build that.
#
# Environment:
#   HELM_VERSION      helm v3 version to build (default v3.16.4). If its go.mod
#                     needs a newer Go than `go version`, pick an older v3 release.
#   HELM_FORCE_LOCAL  set to 1 to ignore a helm on PATH and use/build .tools/bin/helm
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN_DIR="$ROOT/.tools/bin"
HELM_BIN="$BIN_DIR/helm"
HELM_VERSION="${HELM_VERSION:-v3.16.4}"

log() { printf '[install-helm] %s\n' "$*" >&2; }

if [[ "${HELM_FORCE_LOCAL:-0}" != "1" ]] && command -v helm >/dev/null 2>&1; then
  command -v helm
  exit 0
fi

if [[ -x "$HELM_BIN" ]]; then
  echo "$HELM_BIN"
  exit 0
fi

if ! command -v go >/dev/null 2>&1; then
  log "helm not found and no Go toolchain to build it; install Go or helm first"
  exit 1
fi

# Use the installed Go as is: never download another toolchain.
export GOTOOLCHAIN=local

log "building helm $HELM_VERSION from source with $(go version)"

# Download the exact module version; prints JSON including "Dir" (extracted source).
download_json="$(go mod download -json "helm.sh/helm/v3@${HELM_VERSION}")" || {
  log "go mod download failed for helm.sh/helm/v3@${HELM_VERSION}"
  printf '%s\n' "$download_json" >&2 || true
  exit 1
}
src_dir="$(printf '%s\n' "$download_json" | sed -n 's/^[[:space:]]*"Dir":[[:space:]]*"\(.*\)",\{0,1\}$/\1/p' | head -n1)"
if [[ -z "$src_dir" || ! -d "$src_dir" ]]; then
  log "could not find the module source directory in go mod download output:"
  printf '%s\n' "$download_json" >&2
  exit 1
fi

mkdir -p "$BIN_DIR"
tmp_out="$BIN_DIR/.helm.tmp.$$"
trap 'rm -f "$tmp_out"' EXIT

# The module cache is read-only; -mod=mod lets go resolve/verify deps without
# writing go.mod/go.sum into it. Output goes outside the module cache.
(
  cd "$src_dir"
  GOFLAGS=-mod=mod go build -trimpath \
    -ldflags "-s -w -X helm.sh/helm/v3/internal/version.version=${HELM_VERSION} -X helm.sh/helm/v3/internal/version.gitTreeState=clean" \
    -o "$tmp_out" ./cmd/helm
)
mv -f "$tmp_out" "$HELM_BIN"
trap - EXIT

log "installed $("$HELM_BIN" version --short 2>/dev/null || echo "$HELM_VERSION")"
echo "$HELM_BIN"
