#!/usr/bin/env bash
# npm test: install what is missing, build native and WebAssembly, and run every test suite.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh test
bash scripts/build.sh

echo "== native tests (release)"
ctest --preset native --no-tests=error

echo "== native tests with AddressSanitizer and UBSan"
cmake --preset native-asan >/dev/null
cmake --build --preset native-asan -j "$(nproc)"
ctest --preset native-asan --no-tests=error

echo "== fuzz targets, briefly over their corpus (libFuzzer with AddressSanitizer and UBSan)"
bash scripts/fuzz.sh

echo "== WebAssembly module against the native core (node:test)"
node --test tests/node/

echo "== the page in headless Chromium (node:test + playwright-core)"
node --test --test-concurrency=1 tests/browser/
