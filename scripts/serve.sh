#!/usr/bin/env bash
# Installs what is missing, builds the CLI and the page, and serves dist/ on http://127.0.0.1:PORT/
# (PORT defaults to 8000).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh        # Debian packages and npm packages, only what is missing
bash scripts/build-web.sh
cmake --preset ci >/dev/null && cmake --build --preset ci -j"$(nproc)" --target memplan  # the CLI, build/ci/memplan
port="${PORT:-8000}"
echo "memplan: http://127.0.0.1:${port}/  (single-file build: file://$PWD/dist/memplan.html)"
exec python3 -m http.server "$port" --bind 127.0.0.1 --directory dist
