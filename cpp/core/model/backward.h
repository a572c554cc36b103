// The one backward pass, beside the one forward (llm.c's gpt2_backward): the gradient of a loss on
// model_forward's probs, walked back op by op through the tensors the forward left in its trace.
// Training steps read the parameters' gradients; the analyses read the gates' (a head's importance,
// Michel et al. 2019: |∂loss/∂ξ_h| at ξ = 1). Models with blocks only.
#pragma once

#include <cstdint>
#include <vector>

#include "base/config.h"
#include "model/forward.h"
#include "model/trace.h"
#include "model/weights.h"

namespace mha {

// The mean cross-entropy of the trace's probs (B·T·readouts rows of the vocabulary) against targets
// (one per row, (B, T, readouts) in order; −1: not counted). Throws mha::Error when no row is counted
// or a target is outside the vocabulary.
float mean_cross_entropy(const Trace& acts, const std::vector<int32_t>& targets, const Config& config);
int counted_targets(const std::vector<int32_t>& targets);

class ModelBackward {
 public:
  // grads = ∂loss/∂(every parameter), overwritten (zeros_like(config)'s shapes); gate_grads, when not
  // null, = ∂loss/∂gate[layer][head] (resized to layers × heads). The loss is the mean cross-entropy
  // of mean_cross_entropy over the counted targets. acts: model_forward's trace of these B × T ids
  // with these weights, path and gates; weights: every parameter as a tensor (unpack_model's).
  void run(ModelWeights& grads, HeadGates* gate_grads, const Trace& acts, const std::vector<int32_t>& ids,
           const std::vector<int32_t>& targets, int B, int T, const ModelWeights& weights, const Config& config,
           const ForwardOptions& options = {});

 private:
  // scratch, kept between runs: sized for the last B × T
  std::vector<float> dlogits_, dfinal_, dstream_, dln_, dpre_, dhidden_, dconcat_, dhead_out_, ungated_, dq_heads_,
      dk_heads_, dv_heads_, dq_, dk_, dv_, dscores_;
};

}  // namespace mha
