#!/usr/bin/env bash
# Builds the libFuzzer targets (in the native-asan preset's tree: clang 14, AddressSanitizer and UBSan,
# the core npm test's sanitizer tests use) and runs each briefly over its checked-in corpus,
# tests/fuzz/corpus/<target>/: a bounded smoke run for npm test (RUNS inputs each, at most SECONDS per
# target). A crash fails it, and libFuzzer prints the input (crash-<hash>, written under
# build/asan/found). Longer runs by hand: tests/fuzz/fuzz_main.cpp.
#   bash scripts/fuzz.sh [RUNS [SECONDS]]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-2000}
seconds=${2:-15}

targets=(safetensors_header model_file model_builder bpe_files)
cmake --preset native-asan >/dev/null
cmake --build --preset native-asan -j "$(nproc)" --target "${targets[@]/#/fuzz_}"

found=build/asan/found
for target in "${targets[@]}"; do
  # New inputs go to a scratch folder listed first, so the checked-in corpus is read, never written.
  rm -rf "$found/$target"
  mkdir -p "$found/$target"
  log="$found/$target.log"
  if ! (cd "$found" && "../fuzz_$target" "$target" "../../../tests/fuzz/corpus/$target" -runs="$runs" \
          -max_total_time="$seconds" -max_len=16384 -seed=1 -print_final_stats=1) >"$log" 2>&1; then
    echo "fuzz: fuzz_$target failed; its output ($log) ends:" >&2
    tail -n 40 "$log" >&2
    exit 1
  fi
  echo "fuzz: $target: $(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$') inputs, no crash"
done
