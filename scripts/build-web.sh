#!/usr/bin/env bash
# The page bundles, from web/src (needs web/build/mha-core.js from the WebAssembly build):
#   web/build/mha-demo.js  <mha-demo>: the core (wasm inside), web/mha.js and the component, minified,
#                          one classic script that works from file:// and from any article
#   web/build/app.js       index.html's and embed.html's own chrome (permalink, share dialog)
# mha-core.js has Node-only require('fs'/'path') branches that never run in a browser: external.
set -euo pipefail
cd "$(dirname "$0")/.."
npx --no-install esbuild web/src/widget.js --bundle --format=iife --target=es2020 --platform=browser --minify \
  --loader:.css=text --external:fs --external:path --external:crypto \
  --outfile=web/build/mha-demo.js --log-level=warning
npx --no-install esbuild web/src/main.js --bundle --format=iife --target=es2020 --outfile=web/build/app.js --log-level=warning
