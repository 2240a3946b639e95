#!/usr/bin/env bash
# Builds the libFuzzer target over memplan's JSON entry points (tests/fuzz/fuzz_json.cpp, in the
# sanitizer build, preset "asan": Debian's clang 14 + libfuzzer-14-dev, ASan + UBSan) and runs it for FUZZ_SECONDS
# (default 20 in CI: with the fixed mutation seed the first ~9,000 executions are the same on every
# run, and none of them fails; longer runs are on demand). Fails on any crash, leak, undefined behaviour, timeout or broken output invariant;
# the failing input is left in build/asan/artifacts/ (copy it to tests/fuzz/regressions/).
#   bash scripts/fuzz.sh                      # CI: 20 s
#   FUZZ_SECONDS=3600 bash scripts/fuzz.sh    # on demand
#   FUZZ_JOBS=2 ...                           # parallel fuzzing processes (default 1)
#   FUZZ_SEED=0 ...                           # a random mutation sequence (default 1: the same
#                                             # sequence on every CI run, so a run is reproducible)
# Every file in tests/fuzz/regressions/ is replayed first, so a fixed defect stays fixed.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${FUZZ_SECONDS:-20}
jobs=${FUZZ_JOBS:-1}
build=build/asan
echo "== fuzz: building memplan_fuzz (preset asan: clang, -fsanitize=fuzzer,address,undefined)"
[[ -f $build/CMakeCache.txt ]] || cmake --preset asan >/dev/null
cmake --build --preset asan -j"$(nproc)" --target memplan_fuzz

corpus=$build/corpus
mkdir -p "$corpus" "$build/artifacts"
python3 tests/fuzz/make_seeds.py "$build/seeds"

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
fuzzer=$build/memplan_fuzz
flags=(-dict=tests/fuzz/memplan.dict -timeout=30 -rss_limit_mb=2048 -max_len=16384
       -artifact_prefix="$build/artifacts/" -print_final_stats=1 -seed="${FUZZ_SEED:-1}")

if compgen -G "tests/fuzz/regressions/*" >/dev/null; then
  echo "== fuzz: replaying tests/fuzz/regressions/"
  "$fuzzer" "${flags[@]}" tests/fuzz/regressions/* >"$build/regressions.log" 2>&1 ||
    { tail -n 60 "$build/regressions.log"; echo "fuzz: a regression input fails again"; exit 1; }
fi

echo "== fuzz: running ${seconds} s, ${jobs} job(s); corpus $corpus, seeds $build/seeds"
log=$build/fuzz.log
status=0
if ((jobs > 1)); then
  "$fuzzer" "${flags[@]}" -max_total_time="$seconds" -jobs="$jobs" -workers="$jobs" "$corpus" "$build/seeds" \
    >"$log" 2>&1 || status=$?
  cat fuzz-*.log >>"$log" 2>/dev/null || true
  rm -f fuzz-*.log
else
  "$fuzzer" "${flags[@]}" -max_total_time="$seconds" "$corpus" "$build/seeds" >"$log" 2>&1 || status=$?
fi
if ((status != 0)); then
  tail -n 80 "$log"
  echo "fuzz: FAILED (status $status); reproducer: $(ls -t "$build"/artifacts/* 2>/dev/null | head -n 1)"
  exit 1
fi
# The last status line carries the coverage reached: cov (code edges) and ft (features).
grep -E '^#[0-9]+' "$log" | tail -n 1
grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "$log" || true
echo "fuzz: no crash, leak, UB or invariant violation in ${seconds} s; corpus: $(ls "$corpus" | wc -l) inputs"
