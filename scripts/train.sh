#!/usr/bin/env bash
# npm run train: remakes models/induction.safetensors, the model the page opens on, with the
# project's own C++ trainer and its defaults, which are the shipped recipe (induction_recipe() in
# cpp/core/train/induction_task.cpp). The recipe is recorded in the file's __metadata__.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh start
cmake --preset native >/dev/null
cmake --build --preset native -j "$(nproc)" --target mha
mkdir -p models
exec build/native/mha train --out models/induction.safetensors
