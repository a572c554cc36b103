// Stages 3 to 7 of multi-head attention on an embedded input x, recorded into a trace:
//   project  q (1, T, d_model), k, v (1, T, kv_heads·d_head)
//   split    q_heads (1, heads, T, d_head), k_heads, v_heads (1, kv_heads, T, d_head)
//   attend   scores, weights (1, heads, T, T), head_out (1, heads, T, d_head)
//   concat   concat (1, T, d_model)
//   output   y (1, T, d_model)
#pragma once

#include "config.h"
#include "kernels.h"
#include "trace.h"
#include "weights.h"

namespace mha {

// x is (1, T, d_model) and finite. Throws mha::Error on a bad shape or a float32 overflow.
void attention_forward(Trace& trace, const Tensor& x, const AttentionWeights& weights, const Config& config,
                       KernelPath path = KernelPath::simd);

}  // namespace mha
