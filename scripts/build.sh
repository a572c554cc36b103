#!/usr/bin/env bash
# Builds everything from the same sources: the native core, CLI and tests; the WebAssembly module;
# the page's script bundle; and the npm package's files in dist/ (npm pack packs them).
set -euo pipefail
cd "$(dirname "$0")/.."
export NODE_PATH=/usr/share/nodejs  # Emscripten 3.1.6's optimizer finds acorn there

echo "== native build"
cmake --preset native >/dev/null
cmake --build --preset native -j "$(nproc)"

echo "== WebAssembly build"
cmake --preset wasm >/dev/null
cmake --build --preset wasm -j "$(nproc)"

echo "== page bundle"
bash scripts/build-web.sh

echo "== npm package (dist/)"
node scripts/package.js
