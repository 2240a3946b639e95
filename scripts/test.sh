#!/usr/bin/env bash
# Runs every memplan test: native Catch2 tests (release with -Werror, and ASan+UBSan), then the
# WebAssembly module's node tests and the page's browser tests. Installs what is missing first.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

jobs=$(nproc)
echo "== native tests (release, -Werror)"
cmake --preset ci >/dev/null
cmake --build --preset ci -j"$jobs"
ctest --preset ci -j"$jobs"

echo "== native tests (AddressSanitizer + UndefinedBehaviorSanitizer)"
cmake --preset asan >/dev/null
cmake --build --preset asan -j"$jobs"
ctest --preset asan -j"$jobs"

echo "== fuzzing the JSON entry points (libFuzzer + ASan + UBSan, ${FUZZ_SECONDS:-20} s)"
bash scripts/fuzz.sh

if [[ -f scripts/test-web.sh ]]; then
  echo "== WebAssembly module and page"
  bash scripts/test-web.sh
fi
echo "== benchmarks (quick; timings inform only, docs/benchmarks.md)" && bash bench/run.sh --quick
