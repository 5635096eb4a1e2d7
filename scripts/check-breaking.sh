#!/usr/bin/env bash
# `npm run lint`: no change may break a caller of v1 (design.md §11). Compares protos/ (buf
# breaking, the FILE rules of buf.yaml) and the /v1 API document openapi/v1.json (oasdiff,
# its ERR level: a removed operation, a removed or retyped response field, a new required
# request field, a narrowed enum…) with what they were
#   - at the merge base with main (on main itself: the last commit, so uncommitted edits count),
#   - at the newest release tag (v*) reachable from HEAD, when there is one.
# Additions pass. Lint also keeps openapi/v1.json what the code serves (`npm run openapi`
# writes it, tools/stack api-document.ts), so the document compared is the served one.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
log() { printf 'check-breaking: %s\n' "$*" >&2; }

if ! git rev-parse --verify --quiet HEAD >/dev/null 2>&1; then
  log "WARNING: no Git history here: nothing to compare protos/ and openapi/v1.json with, skipped"
  exit 0
fi

main_ref=""
for candidate in main origin/main; do
  if git rev-parse --verify --quiet "$candidate^{commit}" >/dev/null; then
    main_ref="$candidate"
    break
  fi
done
if [ -z "$main_ref" ]; then
  log "no branch main (nor origin/main) to compare with: fetch it (git fetch origin main:main)"
  exit 1
fi
if ! merge_base="$(git merge-base HEAD "$main_ref")"; then
  log "HEAD and $main_ref have no common commit in this clone (a shallow clone?): deepen it (git fetch --unshallow)"
  exit 1
fi

bases=("$merge_base")
labels=("the merge base with $main_ref ($(git rev-parse --short "$merge_base"))")
if tag="$(git describe --tags --abbrev=0 --match 'v*' HEAD 2>/dev/null)"; then
  tagged="$(git rev-parse "$tag^{commit}")"
  if [ "$tagged" != "$merge_base" ]; then
    bases+=("$tagged")
    labels+=("release $tag")
  fi
elif [ "$(git rev-parse --is-shallow-repository)" = "true" ]; then
  log "a shallow clone: a release tag, if any, is out of reach and not compared with"
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
buf="$root/node_modules/.bin/buf"
oasdiff=""
failures=0

for i in "${!bases[@]}"; do
  commit="${bases[$i]}"
  label="${labels[$i]}"
  dir="$work/$i"
  mkdir -p "$dir"

  if git cat-file -e "$commit:buf.yaml" 2>/dev/null; then
    git archive "$commit" buf.yaml protos | tar -x -C "$dir"
    if ! report="$("$buf" breaking . --against "$dir" 2>&1)"; then
      log "protos/ breaks callers of $label:"
      printf '%s\n' "$report" | sed 's/^/  /' >&2
      failures=$((failures + 1))
    fi
  fi

  if git cat-file -e "$commit:openapi/v1.json" 2>/dev/null; then
    oasdiff="${oasdiff:-$(bash "$root/scripts/install-oasdiff.sh" | tail -n 1)}"
    status=0
    report="$("$oasdiff" breaking "$commit:openapi/v1.json" openapi/v1.json --fail-on ERR --format singleline --color never --allow-external-refs=false 2>&1)" || status=$?
    report="$(printf '%s\n' "$report" | sed '/^[[:space:]]*$/d')"
    if [ "$status" -ne 0 ]; then
      log "openapi/v1.json breaks callers of $label:"
      printf '%s\n' "$report" | sed 's/^/  /' >&2
      failures=$((failures + 1))
    elif [ "$report" != "No changes detected" ]; then
      log "openapi/v1.json against $label (not failing):"
      printf '%s\n' "$report" | sed 's/^/  /' >&2
    fi
  else
    log "no openapi/v1.json at $label: the API document is not compared with it"
  fi
done

if [ "$failures" -gt 0 ]; then
  log "callers of v1 rely on what was there: add instead (a new field or operation), or make a v2"
  exit 1
fi
