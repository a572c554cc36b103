// Stages 3 to 7 of multi-head attention on an embedded input x, recorded into a trace:
//   project  q (1, T, d_model), k, v (1, T, kv_heads·d_head)
//   split    q_heads (1, heads, T, d_head), k_heads, v_heads (1, kv_heads, T, d_head)
//   attend   scores, weights (1, heads, T, T), head_out (1, heads, T, d_head)
//   concat   concat (1, T, d_model)
//   output   y (1, T, d_model)
#pragma once

#include "config.h"
#include "gemm.h"
#include "kernels.h"
#include "trace.h"
#include "weights.h"

namespace mha {

// The weights packed for the SIMD path, once per model: W_Q, W_K and W_V side by side, so Q, K and
// V come out of one pass over x, and W_O.
struct PreparedWeights {
  PackedMatrix qkv;             // (d_model, d_model + 2·kv_heads·d_head)
  std::vector<float> qkv_bias;  // b_Q, b_K, b_V
  PackedMatrix out;             // (d_model, d_model)
};
PreparedWeights prepare_weights(const AttentionWeights& weights);

// x is (1, T, d_model) and finite. Throws mha::Error on a bad shape or a float32 overflow.
// `prepared` (from prepare_weights of the same weights) saves packing on every call.
// The stage tensors are written into trace.slot()s after whatever the trace holds at its cursor:
// refilling a restarted trace reuses its storage.
void attention_forward(Trace& trace, const Tensor& x, const AttentionWeights& weights, const Config& config,
                       KernelPath path = KernelPath::simd, const PreparedWeights* prepared = nullptr);

}  // namespace mha
