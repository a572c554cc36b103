#!/usr/bin/env bash
# npm test: install what is missing, build, and run every test suite.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh

echo "== native build and tests (release)"
cmake --preset native >/dev/null
cmake --build --preset native -j "$(nproc)"
ctest --preset native --no-tests=error

echo "== native tests with AddressSanitizer and UBSan"
cmake --preset native-asan >/dev/null
cmake --build --preset native-asan -j "$(nproc)"
ctest --preset native-asan --no-tests=error
