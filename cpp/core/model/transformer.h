// A small transformer built from one description (config.h's Preset): token and learned position
// tables, N blocks, an optional final LayerNorm and an unembedding to logits over the vocabulary.
//   block (attn-only):  resid_mid = x + attention(x)
//   block (GPT-2):      ln_1 = LN(x); resid_mid = x + attention(ln_1); ln_2 = LN(resid_mid);
//                       mlp_hidden = GELU(ln_2·W_fcᵀ + b_fc); mlp_out = mlp_hidden·W_projᵀ + b_proj;
//                       resid_out = resid_mid + mlp_out
// Every weight is stored (out, in), y = x·Wᵀ + b, whatever the file's convention was.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "model/attention.h"
#include "base/config.h"
#include "kernels/gemm.h"
#include "kernels/kernels.h"
#include "model/trace.h"
#include "model/weights.h"

namespace mha {

constexpr float kLayerNormEps = 1e-5f;  // GPT-2's

struct BlockWeights {
  Tensor ln_1_weight, ln_1_bias;  // (d_model): GPT-2 only
  AttentionWeights attention;
  Tensor ln_2_weight, ln_2_bias;  // (d_model): GPT-2 only
  Tensor w_fc, b_fc;              // (4·d_model, d_model), (4·d_model): GPT-2 only
  Tensor w_proj, b_proj;          // (d_model, 4·d_model), (d_model): GPT-2 only
};

struct ModelWeights {
  Tensor token_table;     // (vocab, d_model)
  Tensor position_table;  // (max_positions, d_model)
  std::vector<BlockWeights> blocks;
  Tensor ln_f_weight, ln_f_bias;  // (d_model): GPT-2 only
  Tensor unembedding;             // (vocab, d_model): attn-only; GPT-2 ties it to token_table
  const Tensor& unembedding_matrix() const { return unembedding.data.empty() ? token_table : unembedding; }
};

// Every parameter the preset has, in a fixed order, with a stable name (wte, wpe, h.{i}.ln_1.weight,
// h.{i}.attn.w_q, …, lm_head): what an optimiser walks and what a gradient file is keyed by.
void for_each_parameter(ModelWeights& weights, Preset preset,
                        const std::function<void(const std::string& name, Tensor& tensor)>& fn);
void for_each_parameter(const ModelWeights& weights, Preset preset,
                        const std::function<void(const std::string& name, const Tensor& tensor)>& fn);

// Zero-filled tensors of every parameter's shape (gradients, optimiser moments).
ModelWeights zeros_like(const ModelWeights& weights, Preset preset);

// Throws mha::Error naming the first tensor whose shape does not fit the config, or which is not finite.
void check_model_weights(const ModelWeights& weights, const Config& config);

// Random weights for a model with blocks: matrices normal(0, std) (std = init_std, projections into
// the residual stream scaled by 1/√(2·layers) as GPT-2 does), LayerNorm γ = 1, β = 0, biases 0.
ModelWeights random_model_weights(const Config& config, float init_std);

// The weights packed for the SIMD path, once per model.
struct PreparedBlock {
  PreparedWeights attention;
  PackedMatrix fc, proj;
};
struct PreparedModel {
  std::vector<PreparedBlock> blocks;
  PackedMatrix unembedding;
};
PreparedModel prepare_model(const ModelWeights& weights, const Config& config);

// A model's parameters held once each, as a Model keeps them: every matrix only packed for the SIMD
// kernels (W_Q, W_K, W_V, W_O, W_fc, W_proj and the unembedding), the rest as tensors. GPT-2's
// unembedding is tied to wte, so there wte is the packed unembedding and the embedding reads its
// rows from it; an attn-only model's wte and a single layer's token table stay tensors.
struct PackedModel {
  ModelWeights rest;      // every parameter but the packed ones, which are left empty here
  PreparedModel packed;
};
// Packs `weights` (a single layer's too), freeing each matrix once it is packed: the peak is the
// weights and one block's packing.
PackedModel pack_model(ModelWeights weights, const Config& config);
// Every parameter as a tensor again, bit for bit: what the scalar path, files and accessors read.
ModelWeights unpack_model(const PackedModel& model, const Config& config);
// Block 0's attention weights unpacked (a single layer's).
AttentionWeights unpack_attention(const PackedModel& model);

// Which heads are switched off: off[layer][head]. Empty: none.
using HeadSwitches = std::vector<std::vector<bool>>;

// ids (T) -> the whole trace: embed, every block's stages (layers.{i}.*), ln_f, logits, probs.
// Ids must be in [0, vocab) and T ≤ max_positions. Throws mha::Error, naming the problem.
// KernelPath::simd reads the matrices from `prepared` only, so `weights` may be a PackedModel's rest
// (matrices empty; an empty wte is read from the packed unembedding); KernelPath::scalar reads every
// matrix from `weights` (unpack_model's).
void model_forward(Trace& trace, const std::vector<int32_t>& ids, const ModelWeights& weights,
                   const PreparedModel& prepared, const Config& config, KernelPath path = KernelPath::simd,
                   const HeadSwitches& off = {});

// How many trace entries a run of this config makes (what Trace::restart reserves).
size_t model_trace_size(const Config& config);

}  // namespace mha
