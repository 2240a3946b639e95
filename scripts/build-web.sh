#!/usr/bin/env bash
# Builds the WebAssembly module (CMake preset `wasm`) and assembles the static site in dist/:
# index.html + page script app.js (also the analysis worker's script) + style.css, the API module
# memplan.js (+ memplan-core.js/.wasm, memplan.d.ts), the embedding example, and the single-file page
# memplan.html that opens from file://.
#   scripts/build-web.sh            WASM (incremental) + page
#   scripts/build-web.sh --js-only  page only, from the WASM already in build/wasm (after a web/ edit)
set -euo pipefail
cd "$(dirname "$0")/.."
export NODE_PATH=/usr/share/nodejs  # Debian's emcc needs acorn from there
if [[ ! -d node_modules/esbuild ]]; then npm ci --no-audit --no-fund --loglevel=error; fi
if [[ "${1:-}" != "--js-only" || ! -f build/wasm/wasm/memplan-core.wasm ]]; then
  cmake --preset wasm >/dev/null
  cmake --build --preset wasm -j"$(nproc)"
fi
node scripts/assemble-web.mjs
