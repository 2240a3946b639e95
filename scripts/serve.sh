#!/usr/bin/env bash
# Builds the page and serves dist/ on http://127.0.0.1:PORT/ (PORT defaults to 8000).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build-web.sh
port="${PORT:-8000}"
echo "memplan: http://127.0.0.1:${port}/  (single-file build: file://$PWD/dist/memplan.html)"
exec python3 -m http.server "$port" --bind 127.0.0.1 --directory dist
