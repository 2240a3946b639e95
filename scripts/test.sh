#!/usr/bin/env bash
# Runs every memplan test: the layer check, the documentation check (scripts/check-docs.py), native
# Catch2 tests (release with -Werror, then clang's ASan + UBSan), a short fixed-seed fuzzing run, the
# WebAssembly module's node tests and the page's browser tests, and a "does it run" pass of the
# benchmarks. Installs what is missing first. Each step prints how long it took, and the total at the end.
#   scripts/test.sh          everything (what CI runs)
#   scripts/test.sh --quick  the layer and documentation checks, the release build and its ctest, and
#                            the page's module tests if dist/ already holds a WASM build; no sanitizers,
#                            fuzzing, browser tests or benchmarks, and setup.sh only when cmake, g++, node
#                            or python3 is missing
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

quick=0
case "${1:-}" in
  "") ;;
  --quick) quick=1 ;;
  *) echo "usage: scripts/test.sh [--quick]" >&2; exit 2 ;;
esac

if ((quick)); then
  missing_tools=()
  for tool in cmake g++ node python3; do command -v "$tool" >/dev/null 2>&1 || missing_tools+=("$tool"); done
  if ((${#missing_tools[@]})); then
    step "setup (scripts/setup.sh: ${missing_tools[*]} missing)"
    bash scripts/setup.sh
  fi
else
  step "setup (scripts/setup.sh)"
  bash scripts/setup.sh
fi
jobs=$(nproc)

step "include structure of the core (scripts/check-layers.py)"
python3 scripts/check-layers.py

step "documentation figures and links against the repository (scripts/check-docs.py)"
python3 scripts/check-docs.py

step "native tests (release, -Werror)"
cmake --preset ci >/dev/null
cmake --build --preset ci -j"$jobs"
ctest --preset ci -j"$jobs"

step "CLI reference and examples against the built CLI (scripts/check-docs.py --cli build/ci/memplan)"
python3 scripts/check-docs.py --cli build/ci/memplan

if ((quick)); then
  # The page's pure modules, tested against the WASM module already in dist/ (built by
  # scripts/build-web.sh or scripts/serve.sh); the quick tier builds no WASM.
  if [[ -f dist/memplan.js && -f dist/memplan-core.wasm ]]; then
    step "unit tests of the page's modules (node --test tests/web, against the dist/ already built)"
    if [[ -n "$(find core wasm web -newer dist/memplan.js -type f -print -quit)" ]]; then
      echo "note: core/, wasm/ or web/ changed after dist/ was built; scripts/build-web.sh rebuilds it"
    fi
    node --test tests/web/*.test.mjs
  else
    step "unit tests of the page's modules: skipped (no WASM build in dist/; scripts/build-web.sh makes one)"
  fi
  step "done"
  echo "== quick tests passed in $((SECONDS - start)) s (sanitizers, fuzzing, WASM, browser tests and benchmarks not run)"
  exit 0
fi

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
