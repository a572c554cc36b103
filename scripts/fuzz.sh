#!/usr/bin/env bash
# Builds the libFuzzer targets (the fuzz preset: clang 14, AddressSanitizer and UBSan) and runs each
# briefly over its checked-in corpus, tests/fuzz/corpus/<target>/: a bounded smoke run for npm test
# (RUNS inputs each, at most SECONDS per target). A crash fails it, and libFuzzer prints the input
# (crash-<hash>, written under build/fuzz/found). Longer runs by hand: tests/fuzz/fuzz_main.cpp.
#   bash scripts/fuzz.sh [RUNS [SECONDS]]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-2000}
seconds=${2:-15}

cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "$(nproc)"

found=build/fuzz/found
for target in safetensors_header model_file model_builder bpe_files; do
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
