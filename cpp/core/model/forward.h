// The one forward pass (llm.c's gpt2_forward): every use runs it. A learner's run of one text is a
// batch of 1 whose every stage tensor the page draws; a training step is a batch of B sequences in
// the trainer's own trace; the gradient passes of the analyses walk the same tensors back
// (backward.h). Tensors are recorded under stages.h's names and shapes, a batch of B in place of
// each shape's leading 1:
//   embed      token_embedding, position_encoding, x
//   each block ln_1 (GPT-2) → project q, k, v → split q_heads, k_heads, v_heads → rope q_rot, k_rot
//              (Llama) → attend raw_scores, scores, weights, head_out → concat → output y, head_write →
//              residual resid_mid → ln_2, mlp_pre, mlp_hidden, mlp_out, resid_out (GPT-2)
//   head       ln_f (GPT-2) → logits → probs
// A single attention layer (Preset::single) is one block without residual, LayerNorm or MLP.
//
// With a KV cache (kv_cache.h) the run is incremental decoding: its T tokens are the positions after
// the cached ones (past = cache.length()), each block appends their K and V to the cache and attends
// over all past + T keys and values, and every tensor holds the new positions only, except the
// scores and weights (1, heads, T, past + T), whose rows see the cached keys. Its logits are the
// uncached run's last T rows (the same sums in the same order).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "base/config.h"
#include "kernels/kernels.h"
#include "model/kv_cache.h"
#include "model/trace.h"
#include "model/weights.h"

namespace mha {

// Each head's output is multiplied by its gate before the concat: the one place a head is switched
// off. gates[layer][head]: 1 = on, 0 = off, anything between scales it (Michel et al.'s ξ_h). Empty
// (or an empty layer): all on.
using HeadGates = std::vector<std::vector<float>>;
float gate_of(const HeadGates& gates, int layer, int head);

// Activation patching (analysis/patching.h), TransformerLens's hooks on hook_z and hook_resid_pre:
// the run takes one head's z (its head_out, every position) or one row of the residual stream
// entering a block from `values`, another run's, in place of its own. Batch 1, models with blocks.
struct ActivationPatch {
  enum class Kind { head_z, resid_pre } kind = Kind::head_z;
  int layer = 0;
  int head = 0;                    // head_z: the head whose z is replaced
  int position = 0;                // resid_pre: the row replaced
  const float* values = nullptr;   // head_z: (T, d_head), row after row; resid_pre: (d_model)
};

struct ForwardOptions {
  KernelPath path = KernelPath::simd;
  const HeadGates* gates = nullptr;
  // The same weights as the run reads, as a Model shares them (Model::shared_weights()): the trace
  // keeps them (Trace::weights) and records each head's write, head_write, made from W_O only when
  // read. Null (a trainer's batches, which never read it): head_write is not recorded.
  std::shared_ptr<const PackedModel> weights = nullptr;
  // Models with blocks, batch 1: run the tokens after the cached positions and append theirs. After
  // the first run (the prompt), one token at a time.
  KvCache* cache = nullptr;
  const ActivationPatch* patch = nullptr;
  // false: stop after the last block, without ln_f, logits and probs: for what reads only the
  // blocks (analyse_heldout, every head's weights over a whole split), since a model of real text's
  // unembedding is a third of its run.
  bool head = true;
};

// How many trace entries a run of this config makes (what Trace::restart reserves).
size_t model_trace_size(const Config& config);

// ids: B sequences of T ids, row after row. Runs embed, every block and (models with blocks) the
// head, into a restarted `trace`; ids must be in [0, vocab) and T (plus the cached positions) ≤
// max_positions (mha::Error names the problem). KernelPath::simd reads every matrix from `packed` (so `weights` may be a
// PackedModel's rest, its matrices empty); KernelPath::scalar reads them from `weights`.
void model_forward(Trace& trace, const std::vector<int32_t>& ids, int B, int T, const ModelWeights& weights,
                   const PreparedModel& packed, const Config& config, const ForwardOptions& options = {});

// Finite numbers can still overflow float32 on the way (weights near 3e38): throws run_not_finite
// naming the first tensor of the run, in walk order, that holds a NaN or an infinity, where −∞ is
// allowed only as the causal mask puts it (above the diagonal of scores). A deferred tensor (trace.h)
// is checked when it is made. Model's runs call it; training checks its loss instead.
void check_run_finite(const Trace& trace, const Config& config);

// The same from an embedded input already in the trace as its "x" (B, T, d_model), on: what
// model_forward runs after embedding, and what a single layer runs on an input of its own. The
// caller has restarted the trace and slotted x; this finishes it.
void forward_from_x(Trace& trace, int B, int T, const ModelWeights& weights, const PreparedModel& packed,
                    const Config& config, const ForwardOptions& options = {});

}  // namespace mha
