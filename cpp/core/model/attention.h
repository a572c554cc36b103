// The attention stages of one layer on an input x, recorded into a trace (shapes: stages.h):
//   project  q, k, v;  split  q_heads, k_heads, v_heads;  rope (llama weights)  q_rot, k_rot;  attend  raw_scores, scores, weights,
//   head_out;  concat  concat;  output  y
#pragma once

#include "base/config.h"
#include "kernels/gemm.h"
#include "kernels/kernels.h"
#include "model/trace.h"
#include "model/weights.h"

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
// The stage tensors are written into trace.slot()s of `layer` (-1: unprefixed names) after whatever
// the trace holds at its cursor: refilling a restarted trace reuses its storage. The caller ends the
// run with trace.finish(). Heads marked in `switched_off` (one flag per head, or null) have their
// head_out set to zero before the concat: the experiment of turning a head off.
const Tensor& attention_forward(Trace& trace, const Tensor& x, const AttentionWeights& weights, const Config& config,
                                KernelPath path = KernelPath::simd, const PreparedWeights* prepared = nullptr,
                                int layer = -1, const std::vector<bool>* switched_off = nullptr);

}  // namespace mha
