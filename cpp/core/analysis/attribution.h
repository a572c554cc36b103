// Direct logit attribution: the logit of one token at one position, split exactly into what wrote it
// into the residual stream. The stream the unembedding reads is the sum of the embedding (x, the
// direct path), every head's write (head_write, forward.h), every MLP's output and the biases (b_O,
// b_proj), so the logit is the sum of each part read by the token's unembedding row. GPT-2's final
// LayerNorm is linear once its 1/σ at that position is held fixed (TransformerLens's convention):
// each part is centred, scaled by that 1/σ and γ; ln_f's β goes into the bias part.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "base/config.h"
#include "model/trace.h"

namespace mha {

struct LogitPart {
  enum class Kind { embedding, head, mlp, bias } kind;
  int layer = -1, head = -1;  // a head's layer and head, an MLP's layer; -1 where it has none
  double value = 0;
};
const char* part_kind_name(LogitPart::Kind kind);  // "embedding", "head", "mlp", "bias"

struct LogitAttribution {
  int position = 0;
  int32_t token = 0;
  double logit = 0;              // the trace's own logit
  std::vector<LogitPart> parts;  // embedding, every head (layer by layer), every MLP, bias: they sum to the logit
};

// The logit of `token` at `position` of a Model's run (its trace keeps its weights: Trace::weights).
// position -1: the last; token -1: the first choice there. A model of blocks; mha::Error for a
// position outside the text (field "position") or a token outside the vocabulary (field "token").
LogitAttribution attribute_logit(const Trace& trace, const Config& config, int position = -1, int32_t token = -1);

// Every position's, each for its first choice (the parts come in the same order at every position).
std::vector<LogitAttribution> attribute_each_position(const Trace& trace, const Config& config);

// {"position", "token", "logit", "parts": [{"kind", "layer"?, "head"?, "value"}]}
nlohmann::json attribution_to_json(const LogitAttribution& attribution);

}  // namespace mha
