// The parameters of one attention layer, in one convention for every layout: y = x·Wᵀ + b.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "base/config.h"
#include "base/tensor.h"

namespace mha {

struct AttentionWeights {
  Tensor w_q, b_q;  // (d_model, d_model), (d_model,)
  Tensor w_k, b_k;  // (kv_heads·d_head, d_model), (kv_heads·d_head,)
  Tensor w_v, b_v;  // like w_k, b_k
  Tensor w_o, b_o;  // (d_model, d_model), (d_model,)
};

// The eight tensors with their public names, in order: w_q b_q w_k b_k w_v b_v w_o b_o.
// The trace file and the WASM module use these names.
std::vector<std::pair<const char*, const Tensor*>> named_weights(const AttentionWeights& weights);

// Layer weights as PyTorch's nn.MultiheadAttention draws them: Xavier/Glorot uniform matrices and
// zero biases. Each matrix has its own stream of the seed, so sizes of one never shift another.
AttentionWeights random_attention_weights(const Config& config);

// Throws mha::Error naming the tensor whose shape does not fit `config`, or which holds NaN/inf.
void check_attention_weights(const AttentionWeights& weights, const Config& config);

// Xavier/Glorot uniform bound for a (fan_out, fan_in) matrix: sqrt(6 / (fan_in + fan_out)).
float xavier_bound(int fan_in, int fan_out);

}  // namespace mha
