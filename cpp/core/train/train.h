// Training a model of blocks on next-token prediction (or K readouts per position), llm.c style: the one forward (forward.h) over
// a batch, the one backward (backward.h) through what it kept, then AdamW.
// Deterministic: the same seed gives the same bits on every run, natively and in WebAssembly (the
// SIMD kernels reduce in a fixed order and use no libm call whose last bit may differ).
#pragma once

#include <cstdint>
#include <vector>

#include "base/config.h"
#include "kernels/kernels.h"
#include "model/backward.h"
#include "model/forward.h"
#include "model/weights.h"
#include "train/adam.h"

namespace mha {

// About how many bytes training `config` on batches of B × T ids holds: the parameters five times
// (weights, gradients, Adam's two moments, each step's packing) and the forward's tensors twice (kept
// for the backward, and the backward's own). For refusing a run that could not fit before it starts.
uint64_t training_bytes(const Config& config, int B, int T);
// A batch of B sequences of T ids, with `readouts` targets per id ((B, T, readouts); −1: not counted).
struct Batch {
  int B = 0, T = 0;
  std::vector<int32_t> ids, targets;
};

class Trainer {
 public:
  // Trains `weights` (a model of blocks described by `config`) in place, starting from step 0.
  Trainer(const Config& config, ModelWeights weights, const AdamSettings& adam, KernelPath path = KernelPath::simd);

  // The mean cross-entropy over the counted positions of a batch of B sequences of T ids, and the
  // gradient of every parameter (gradients()). targets[(b·T + t)·K + r] is the id readout r should
  // give at ids[b·T + t] (K = config.readouts; for K = 1 the id that follows), or −1 where no loss is
  // counted. Does not change the weights.
  float loss_and_gradients(const std::vector<int32_t>& ids, const std::vector<int32_t>& targets, int B, int T);
  // loss_and_gradients, then one AdamW step. Returns the loss before the step.
  float step(const std::vector<int32_t>& ids, const std::vector<int32_t>& targets, int B, int T);

  const Config& config() const { return config_; }
  const ModelWeights& weights() const { return weights_; }
  const ModelWeights& gradients() const { return grads_; }
  // The last batch's forward: what training_bytes() counts twice (the activations and their gradients).
  const Trace& activations() const { return acts_; }
  int steps_done() const { return step_; }
  // Adam's running moments, and setting them with the weights and the step: what a checkpoint holds
  // beside the weights, so that a resumed run takes the same steps (train/checkpoint.h).
  const ModelWeights& adam_m() const { return adam_m_; }
  const ModelWeights& adam_v() const { return adam_v_; }
  void restore(ModelWeights weights, ModelWeights adam_m, ModelWeights adam_v, int step);
  AdamSettings& adam() { return adam_; }

 private:
  Config config_;
  ModelWeights weights_, grads_, adam_m_, adam_v_;
  AdamSettings adam_;
  KernelPath path_;
  int step_ = 0;
  Trace acts_;  // the last batch's forward: the stage table's tensors with B in place of the batch's 1
  ModelBackward backward_;
};

}  // namespace mha
