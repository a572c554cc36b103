#!/usr/bin/env bash
# npm run train: remakes models/induction.safetensors, the model the page opens on, with the
# project's own C++ trainer. The recipe is recorded in the file's __metadata__; see README "The trained model".
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh start
cmake --preset native >/dev/null
cmake --build --preset native -j "$(nproc)" --target mha
mkdir -p models
exec build/native/mha train --preset attn-only --layers 2 --heads 4 --d-model 64 --vocab 64 \
  --steps 3000 --batch 16 --lr 3e-3 --init-std 0.1 --seed 2 --out models/induction.safetensors
