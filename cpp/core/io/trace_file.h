// A trace as a safetensors file: every stage tensor (F32, batch dimension kept), the weights that
// produced it and, for text, the token ids, so anyone can recompute it with another library.
#pragma once

#include <cstdint>
#include <vector>

#include "base/config.h"
#include "model/trace.h"
#include "model/weights.h"

namespace mha {

// Tensor names: the trace's own (x, q, …, y; layers.{i}.q …, logits, probs), for a single layer also
// w_q b_q w_k b_k w_v b_v w_o b_o (y = x·Wᵀ + b; `weights` null: none), and ids (1, T) as I64.
// __metadata__ holds the config, the tokens (a JSON array) and each tensor's stage.
std::vector<uint8_t> trace_to_safetensors(const Trace& trace, const AttentionWeights* weights, const Config& config);

}  // namespace mha
