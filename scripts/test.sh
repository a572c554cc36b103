#!/usr/bin/env bash
# npm test: install what is missing, build native and WebAssembly, and run every test suite.
set -euo pipefail
cd "$(dirname "$0")/.."

# Where the time goes, stage by stage, printed at the end (also when a stage fails): README's CI time.
timings=()
mark=$SECONDS
took() { timings+=("$(printf '%4d s  %s' $((SECONDS - mark)) "$1")"); mark=$SECONDS; }
# The compiler cache's share of the compiles (CMakeLists.txt: a fresh clone takes what an earlier one compiled).
cached() {
  command -v ccache >/dev/null || return 0
  ccache --print-stats 2>/dev/null | awk '/^(direct|preprocessed)_cache_hit\t/ {hit += $2} /^cache_miss\t/ {miss += $2}
    END {if (hit + miss) printf "  compiles taken from ccache: %d of %d\n", hit, hit + miss}'
}
trap 'echo "== where the time went"; printf "  %s\n" "${timings[@]}"; echo "  $(printf "%4d" $SECONDS) s  in all"; cached' EXIT

bash scripts/setup.sh test
took "installs (setup.sh test)"
if command -v ccache >/dev/null; then ccache --zero-stats >/dev/null; fi
bash scripts/build.sh
took "builds: native, WebAssembly, page, package"

echo "== native tests (release)"
ctest --preset native --no-tests=error -j "$(nproc)"
took "native tests (release)"

echo "== native tests with AddressSanitizer and UBSan"
cmake --preset native-asan >/dev/null
cmake --build --preset native-asan -j "$(nproc)"
took "AddressSanitizer build"
ctest --preset native-asan --no-tests=error -j "$(nproc)"
took "AddressSanitizer tests"

echo "== fuzz targets, briefly over their corpus (libFuzzer with AddressSanitizer and UBSan)"
bash scripts/fuzz.sh
took "fuzz build and runs"

# node:test's own output (spec in a terminal, TAP in a log), then where the time went file by file.
reporters=(--test-reporter="$([ -t 1 ] && echo spec || echo tap)" --test-reporter-destination=stdout
  --test-reporter=./tests/time-by-file.mjs --test-reporter-destination=stdout)

echo "== WebAssembly module against the native core (node:test)"
node --test --test-concurrency=2 "${reporters[@]}" tests/node/  # none of them times anything
took "node tests"

echo "== the page in headless Chromium (node:test + playwright-core)"
# Every file, two at a time (a Chromium and a core each), its tests that measure no time; then, one
# file at a time, the tests that measure time on the page (frames a second, a frame's 16 ms, the 90 s
# training clock, a server's delay), each declared with timedTest (tests/browser/lanes.js).
# Both halves run even when the first fails, so one run reports every failure.
mapfile -t timed < <(grep -l 'timedTest(' tests/browser/*.test.js)
failed=0
MHA_BROWSER_LANE=untimed node --test --test-concurrency=2 "${reporters[@]}" tests/browser/*.test.js || failed=1
took "browser tests that time nothing, two files at a time"
MHA_BROWSER_LANE=timed node --test --test-concurrency=1 "${reporters[@]}" "${timed[@]}" || failed=1
took "browser tests that measure time, alone (those of ${#timed[@]} files)"
exit "$failed"
