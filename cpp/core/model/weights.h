// The weights as a model keeps them, in one convention for every file layout: y = x·Wᵀ + b, every
// matrix (out, in). parameters.h declares each one (its name, shape, initialisation and place in
// each file); this file only says where they are held.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "base/config.h"
#include "base/tensor.h"
#include "kernels/gemm.h"

namespace mha {

struct AttentionWeights {
  Tensor w_q, b_q;  // (d_model, d_model), (d_model,)
  Tensor w_k, b_k;  // (kv_heads·d_head, d_model), (kv_heads·d_head,)
  Tensor w_v, b_v;  // like w_k, b_k
  Tensor w_o, b_o;  // (d_model, d_model), (d_model,)
};

struct BlockWeights {
  Tensor ln_1_weight, ln_1_bias;  // (d_model): GPT-2 only
  AttentionWeights attention;
  Tensor ln_2_weight, ln_2_bias;  // (d_model): GPT-2 only
  Tensor w_fc, b_fc;              // (4·d_model, d_model), (4·d_model): GPT-2 only
  Tensor w_proj, b_proj;          // (d_model, 4·d_model), (d_model): GPT-2 only
};

struct ModelWeights {
  Tensor token_table;     // (vocab, d_model): models with blocks (a single layer's, when its file has one)
  Tensor position_table;  // (max_positions, d_model)
  std::vector<BlockWeights> blocks;
  Tensor ln_f_weight, ln_f_bias;  // (d_model): GPT-2 only
  Tensor unembedding;             // (vocab, d_model): attn-only; GPT-2 ties it to token_table
  const Tensor& unembedding_matrix() const { return unembedding.data.empty() ? token_table : unembedding; }
};

// The matrices packed for the SIMD kernels (gemm.h, B = Wᵀ). W_Q, W_K and W_V side by side, so Q, K
// and V come out of one pass over x.
struct PreparedWeights {
  PackedMatrix qkv;             // (d_model, d_model + 2·kv_heads·d_head)
  std::vector<float> qkv_bias;  // b_Q, b_K, b_V
  PackedMatrix out;             // (d_model, d_model)
};
struct PreparedBlock {
  PreparedWeights attention;
  PackedMatrix fc, proj;
};
struct PreparedModel {
  std::vector<PreparedBlock> blocks;
  PackedMatrix unembedding;
};

// A model's parameters held once each, as a Model keeps them: every matrix only packed for the SIMD
// kernels, the rest as tensors. GPT-2's unembedding is tied to wte, so there wte is the packed
// unembedding and the embedding reads its rows from it; an attn-only model's wte and a single
// layer's token table stay tensors.
struct PackedModel {
  ModelWeights rest;  // every parameter but the packed ones, which are left empty here
  PreparedModel packed;
};

// The eight tensors of one attention layer with their public names, in order: w_q b_q w_k b_k w_v
// b_v w_o b_o. The trace file and the WASM module use these names.
std::vector<std::pair<const char*, const Tensor*>> named_weights(const AttentionWeights& weights);

}  // namespace mha
