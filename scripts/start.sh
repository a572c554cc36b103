#!/usr/bin/env bash
# npm start: install what is missing, build, and run the walkthrough on the Chinese example.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
cmake --preset native >/dev/null
cmake --build --preset native -j "$(nproc)" --target mha
./build/native/mha shapes --text "我是秦始皇" --d-model 512 --heads 8
