#!/usr/bin/env bash
# Runs every memplan test: the layer check, native Catch2 tests (release with -Werror, then clang's
# ASan + UBSan), a short fixed-seed fuzzing run, the WebAssembly module's node tests and the page's
# browser tests, and a "does it run" pass of the benchmarks. Installs what is missing first. Each
# step prints how long it took, and the total at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
step_start=$SECONDS
step() {  # step NAME: closes the previous step with its time, opens the next
  if [[ -n "${current:-}" ]]; then echo "== ${current}: $((SECONDS - step_start)) s"; fi
  current=$1
  step_start=$SECONDS
  echo "== $1"
}

step "setup (scripts/setup.sh)"
bash scripts/setup.sh
jobs=$(nproc)

step "include structure of the core (scripts/check-layers.py)"
python3 scripts/check-layers.py

step "native tests (release, -Werror)"
cmake --preset ci >/dev/null
cmake --build --preset ci -j"$jobs"
ctest --preset ci -j"$jobs"

step "native tests (clang, AddressSanitizer + UndefinedBehaviorSanitizer)"
cmake --preset asan >/dev/null
cmake --build --preset asan -j"$jobs"
ctest --preset asan -j"$jobs"

step "fuzzing the JSON entry points (regressions replayed, then ${FUZZ_SECONDS:-20} s with a fixed seed)"
bash scripts/fuzz.sh

step "WebAssembly module and page"
bash scripts/test-web.sh

# The benchmarks run here only to show that they still run (a crash or a missing target fails the
# step); their timings inform and are recorded in docs/benchmarks.md, never checked here.
step "benchmarks: does it run (bench/run.sh --quick; timings not checked)"
bash bench/run.sh --quick
step "done"
echo "== all tests passed in $((SECONDS - start)) s"
