#!/usr/bin/env bash
# Builds everything from the same sources: the native core, CLI and tests; the WebAssembly module;
# the page's script bundle; and the npm package's files in dist/ (npm pack packs them).
set -euo pipefail
cd "$(dirname "$0")/.."
export NODE_PATH=/usr/share/nodejs  # Emscripten 3.1.6's optimizer finds acorn there

echo "== native build"
cmake --preset native >/dev/null
cmake --build --preset native -j "$(nproc)"

# The page carries the shipped models' heads on their held-out text (scripts/web-parts.js
# heldoutHeadTypes: the native CLI over each excerpt, ~25 s on one core). Measured while the
# WebAssembly modules link, which leaves a core idle (wasm-opt is single-threaded); kept in
# web/build/heldout-heads.json for the page bundle below.
node -e "require('./scripts/web-parts.js').heldoutHeadTypes().catch((e) => { console.error(e.message); process.exit(1); })" &
heldout=$!

echo "== WebAssembly build"
cmake --preset wasm >/dev/null
cmake --build --preset wasm -j "$(nproc)"
wait "$heldout"

echo "== page bundle"
bash scripts/build-web.sh

echo "== npm package (dist/)"
node scripts/package.js
