#!/usr/bin/env bash
# Installs what is missing, builds the page (WASM module + page, scripts/build-web.sh) and serves dist/
# on http://127.0.0.1:PORT/ (PORT defaults to 8000), printing its URL as soon as the page is built. The
# native CLI (build/ci/memplan), which the page does not need, builds meanwhile in the background: its
# log goes to build/serve-cli.log and a line says when it is ready. Stopping the server stops that build.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh        # Debian packages and npm packages, only what is missing
bash scripts/build-web.sh
port="${PORT:-8000}"
log=build/serve-cli.log
mkdir -p build
set -m  # each background job in a process group of its own, so that stopping the server stops all of the build
(
  if { cmake --preset ci && nice cmake --build --preset ci -j"$(nproc)" --target memplan; } >"$log" 2>&1; then
    echo "memplan: the CLI is ready: build/ci/memplan"
  else
    echo "memplan: the CLI build failed (the page is unaffected); see $log" >&2
  fi
) &
cli_build=$!
python3 -m http.server "$port" --bind 127.0.0.1 --directory dist &
server=$!
set +m
trap 'kill -- -"$cli_build" -"$server" 2>/dev/null || true' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP
echo "memplan: http://127.0.0.1:${port}/  (single-file build: file://$PWD/dist/memplan.html)"
echo "memplan: building the CLI (build/ci/memplan) in the background; its log: $log"
wait "$server"
