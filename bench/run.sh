#!/usr/bin/env bash
# `npm run bench`: the native bench (memplan_bench) and the node bench (bench/bench.mjs, side by side
# with transformer_mem.py when MEMPLAN_TRANSFORMER_MEM_PY is set). --quick: a few iterations (CI).
# Builds what is missing (native release build, dist/). Timings inform only; docs/benchmarks.md.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ -f build/ci/CMakeCache.txt ]] || cmake --preset ci >/dev/null
cmake --build --preset ci -j"$(nproc)" --target memplan_bench
build/ci/memplan_bench "$@"
[[ -f dist/memplan.js ]] || bash scripts/build-web.sh
node bench/bench.mjs "$@"
