// The task one head cannot do: at every position i ≥ K, predict the K tokens before it — readout k
// (k = 1 … K) predicts the id at i − k — in sequences of random ids drawn uniformly from the whole
// vocabulary (no start token). One head points at one place; recalling K offsets at once takes K
// pointers, so a model of one attention layer needs about K heads, and the heads split d_model
// rather than copy it: every head count has the same parameters (Vaswani et al. 2017, Table 3 row A).
#pragma once

#include <cstdint>
#include <vector>

#include "base/random.h"
#include "model/model.h"
#include "train/train.h"

namespace mha {

struct RecallTask {
  int readouts = 4;  // K, the model's Config::readouts
  int length = 16;   // T: ids per sequence, the model's positions
  int vocab = 64;    // the model's vocab_size
};

// One sequence of task.length ids, each uniform in [0, vocab).
std::vector<int32_t> recall_sequence(Rng& rng, const RecallTask& task);
// B sequences; targets (B, T, K): targets[(b·T + i)·K + k − 1] = ids[b·T + i − k] for i ≥ K, else −1.
Batch recall_batch(Rng& rng, const RecallTask& task, int B);
// The same targets for one sequence of ids.
std::vector<int32_t> recall_targets(const std::vector<int32_t>& ids, int readouts);

// How a model does on fresh sequences, at the counted positions i ≥ K.
struct RecallScores {
  double loss = 0;                          // the mean cross-entropy over every counted readout
  std::vector<double> accuracy;             // per readout k − 1: first choice = the id at i − k
  double mean_accuracy = 0;                 // over the readouts
  std::vector<std::vector<double>> stripe;  // per head of the last layer, per k − 1: mean weight a[i][i − k]
};

// `sequences` fresh sequences from `seed`, each run through the model (a batch of 1, as the page runs it).
RecallScores evaluate_recall(const Model& model, const RecallTask& task, uint64_t seed, int sequences);

// The sequences `mha train`, `mha sweep` and the page score a recall model on: enough that one wrong
// readout in a thousand shows, few enough to take well under a second in WebAssembly.
constexpr int kRecallEvalSequences = 500;

}  // namespace mha
