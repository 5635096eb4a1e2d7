# Tools built from source once per version (FerretDB, Jaeger, helm, oasdiff), kept outside the clone
# so that every clone of the machine reuses them: ${XDG_CACHE_HOME:-~/.cache}/quire-tools/
# <name>-<version>/<name>, with the binary's sha256 beside it (<name>.sha256). A binary that
# no longer matches its checksum is not used: it gets built again. Source this file.

tool_cache_dir() { printf '%s/quire-tools/%s-%s\n' "${XDG_CACHE_HOME:-$HOME/.cache}" "$1" "$2"; }

# Prints the path of tool <name> <version> when the cache holds it intact; fails otherwise.
cached_tool_path() {
  local dir
  dir="$(tool_cache_dir "$1" "$2")"
  [ -x "$dir/$1" ] && [ -f "$dir/$1.sha256" ] || return 1
  [ "$(_tool_sha256 "$dir/$1")" = "$(cat "$dir/$1.sha256")" ] || return 1
  printf '%s\n' "$dir/$1"
}

# Moves a freshly built <file> into the cache as tool <name> <version>, records its checksum
# and prints its path. Each step is a rename, so clones building the same tool at once are safe.
store_tool() {
  local name=$1 version=$2 file=$3 dir
  dir="$(tool_cache_dir "$name" "$version")"
  mkdir -p "$dir"
  chmod +x "$file"
  mv -f "$file" "$dir/.$name.$$"
  _tool_sha256 "$dir/.$name.$$" >"$dir/.$name.sha256.$$"
  mv -f "$dir/.$name.$$" "$dir/$name"
  mv -f "$dir/.$name.sha256.$$" "$dir/$name.sha256"
  printf '%s\n' "$dir/$name"
}

# Downloads one exact version of a Go module (never its version list, which some module
# proxies refuse) and prints the directory of its read-only source.
go_module_source() {
  local dir
  dir="$(GOTOOLCHAIN=local GOFLAGS=-mod=mod go mod download -json "$1@$2" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
  [ -n "$dir" ] && [ -d "$dir" ] || return 1
  printf '%s\n' "$dir"
}

# Builds package <package> (e.g. ./cmd/jaeger) of Go module <module> at <version> into the cache as
# tool <name> and prints its path: one exact version of the module's source, copied to a scratch
# directory where the optional function <prepare> runs first (given that directory), then built.
build_go_module_tool() {
  local name=$1 version=$2 module=$3 package=$4 prepare=${5:-} source_dir work
  if ! command -v go >/dev/null 2>&1; then
    echo "install-$name: Go is not installed; it is needed once to build $name $version" >&2
    return 1
  fi
  echo "install-$name: building $name $version with $(go version)" >&2
  source_dir="$(go_module_source "$module" "$version")" || {
    echo "install-$name: could not download $module $version" >&2
    return 1
  }
  work="$(mktemp -d)"
  cp -r "$source_dir/." "$work/src"
  chmod -R u+w "$work/src"
  if [ -n "$prepare" ]; then "$prepare" "$work/src"; fi
  (cd "$work/src" && GOTOOLCHAIN=local GOFLAGS=-mod=mod DO_NOT_TRACK=1 go build -trimpath -o "$work/$name" "$package") || {
    rm -rf "$work"
    return 1
  }
  store_tool "$name" "$version" "$work/$name"
  rm -rf "$work"
}

# Makes Go tool <name> available to the clone at <root> as .tools/bin/<name> and prints its path:
# the cached build of <version>, else one on PATH (printed, not linked), else built now
# (build_go_module_tool, with the same arguments after <root>).
install_go_tool() {
  local root=$1 name=$2 version=$3 path
  if ! path="$(cached_tool_path "$name" "$version")"; then
    if command -v "$name" >/dev/null 2>&1; then
      command -v "$name"
      return 0
    fi
    path="$(build_go_module_tool "${@:2}")" || return 1
  fi
  mkdir -p "$root/.tools/bin"
  ln -sfn "$path" "$root/.tools/bin/$name"
  echo "$path"
}

_tool_sha256() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1" | cut -d' ' -f1; else shasum -a 256 "$1" | cut -d' ' -f1; fi
}
