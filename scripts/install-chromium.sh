#!/usr/bin/env bash
# Debian's Chromium, for the browser tests (the API reference page): installed once, from the
# distribution's packages; nothing is downloaded by the test itself.
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then
  echo "install-chromium: $(chromium --version 2>/dev/null || echo chromium) already installed"
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null
echo "install-chromium: $(chromium --version)"
