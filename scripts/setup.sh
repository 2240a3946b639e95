#!/usr/bin/env bash
# Installs what memplan's build and tests need on a Debian (bookworm) machine: Debian packages
# for the toolchain and npm packages for the browser tests. Safe to run again; installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi

packages=(cmake g++ make catch2 nlohmann-json3-dev emscripten chromium python3 python3-torch)
packages+=(clang libfuzzer-14-dev)  # scripts/fuzz.sh: libFuzzer with ASan + UBSan
packages+=(mkdocs python3-sphinx)  # tests/e2e/element.test.mjs: real MkDocs and Sphinx sites embedding <memplan-estimate>
missing=()
for pkg in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done
if ! command -v node >/dev/null 2>&1; then missing+=(nodejs npm); fi
if ((${#missing[@]})); then
  echo "setup: installing Debian packages: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [[ -f package-lock.json ]] && [[ ! -d node_modules || package-lock.json -nt node_modules/.package-lock.json ]]; then
  echo "setup: installing npm packages"
  npm ci --no-audit --no-fund --loglevel=error
fi
