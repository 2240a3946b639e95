#!/usr/bin/env bash
# Builds the WebAssembly module (CMake preset `wasm`) and assembles the static site in dist/:
# index.html + page modules + style.css, the API module memplan.js (+ memplan-core.js/.wasm, memplan.d.ts),
# the embedding example, and the single-file page memplan.html that opens from file://.
set -euo pipefail
cd "$(dirname "$0")/.."
export NODE_PATH=/usr/share/nodejs  # Debian's emcc needs acorn from there (docs: GUIDE §3)
if [[ ! -d node_modules/esbuild ]]; then npm ci --no-audit --no-fund --loglevel=error; fi
cmake --preset wasm >/dev/null
cmake --build --preset wasm -j"$(nproc)"
node scripts/assemble-web.mjs
