#!/usr/bin/env bash
# GitBook's CLI (@gitbook/cli, pinned in scripts/gitbook-cli/package-lock.json), for the test that
# publishes a @gitbook/runtime integration to Quire with `gitbook publish`. A package of its own,
# not a workspace: its esbuild 0.17 and miniflare stay out of the monorepo's tree. Installed without
# install scripts: the CLI's postinstall downloads a tunnel binary (cloudflared, for `gitbook dev`)
# from the internet, and esbuild finds its platform binary through its optional dependency anyway.
set -euo pipefail
cd "$(dirname "$0")/gitbook-cli"
lock_digest="$(sha256sum package-lock.json | cut -d' ' -f1)"
if [ -f node_modules/.quire-lock-digest ] && [ "$(cat node_modules/.quire-lock-digest)" = "$lock_digest" ] && [ -f node_modules/@gitbook/cli/cli.js ]; then
  echo "install-gitbook-cli: @gitbook/cli $(node -p "require('@gitbook/cli/package.json').version") already installed"
  exit 0
fi
npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
echo "$lock_digest" >node_modules/.quire-lock-digest
echo "install-gitbook-cli: @gitbook/cli $(node -p "require('@gitbook/cli/package.json').version")"
