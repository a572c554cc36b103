// Training a model of blocks on next-token prediction, llm.c style: one forward over a batch that
// keeps what the backward pass needs, the backward pass op by op in reverse, then AdamW.
// Deterministic: the same seed gives the same bits on every run, natively and in WebAssembly (the
// SIMD kernels reduce in a fixed order and use no libm call whose last bit may differ).
#pragma once

#include <cstdint>
#include <vector>

#include "train/adam.h"
#include "base/config.h"
#include "kernels/kernels.h"
#include "model/transformer.h"

namespace mha {

class Trainer {
 public:
  // Trains `weights` (a model of blocks described by `config`) in place, starting from step 0.
  Trainer(const Config& config, ModelWeights weights, const AdamSettings& adam, KernelPath path = KernelPath::simd);

  // The mean cross-entropy over the counted positions of a batch of B sequences of T ids, and the
  // gradient of every parameter (gradients()). targets[b·T + t] is the id that should follow
  // ids[b·T + t], or −1 where no loss is counted. Does not change the weights.
  float loss_and_gradients(const std::vector<int32_t>& ids, const std::vector<int32_t>& targets, int B, int T);
  // loss_and_gradients, then one AdamW step. Returns the loss before the step.
  float step(const std::vector<int32_t>& ids, const std::vector<int32_t>& targets, int B, int T);

  const Config& config() const { return config_; }
  const ModelWeights& weights() const { return weights_; }
  const ModelWeights& gradients() const { return grads_; }
  int steps_done() const { return step_; }
  AdamSettings& adam() { return adam_; }

 private:
  struct LayerActs {  // one block's saved activations, (B, T, ·) unless noted
    std::vector<float> ln_1, ln_1_mean, ln_1_rstd;          // GPT-2
    std::vector<float> q, k, v;                             // projections
    std::vector<float> q_heads, k_heads, v_heads;           // (B, heads, T, d_head), (B, kv_heads, T, d_head)
    std::vector<float> weights;                             // (B, heads, T, T)
    std::vector<float> head_out;                            // (B, heads, T, d_head)
    std::vector<float> concat, resid_mid;
    std::vector<float> ln_2, ln_2_mean, ln_2_rstd, fc, fc_gelu, resid_out;  // GPT-2
  };
  void forward(const std::vector<int32_t>& ids, int B, int T);
  void backward(const std::vector<int32_t>& ids, const std::vector<int32_t>& targets, int B, int T, float dloss);
  void resize(int B, int T);

  Config config_;
  ModelWeights weights_, grads_, adam_m_, adam_v_;
  AdamSettings adam_;
  KernelPath path_;
  int step_ = 0;
  int B_ = 0, T_ = 0;  // the sizes the buffers hold

  std::vector<float> x_;  // (B, T, d): the embedded input
  std::vector<LayerActs> acts_;
  std::vector<float> ln_f_, ln_f_mean_, ln_f_rstd_, logits_, probs_, losses_;
  // backward scratch
  std::vector<float> dstream_, dstream2_, dlogits_, dfinal_, dq_, dk_, dv_, dq_heads_, dk_heads_, dv_heads_, dhead_out_,
      dconcat_, dscores_, dln_, dfc_, dfc_gelu_, scores_scratch_;
};

}  // namespace mha
