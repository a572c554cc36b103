#include "base/config.h"

#include <string>

#include "base/error.h"

namespace mha {

void validate_config(const Config& c) {
  using std::to_string;
  if (c.d_model < 1 || c.d_model > kMaxDModel)
    throw Error(ErrorCode::out_of_range, "d_model", {{"min", "1"}, {"max", to_string(kMaxDModel)}, {"value", to_string(c.d_model)}});
  if (c.heads < 1 || c.heads > kMaxHeads)
    throw Error(ErrorCode::out_of_range, "heads", {{"min", "1"}, {"max", to_string(kMaxHeads)}, {"value", to_string(c.heads)}});
  if (c.d_model % c.heads != 0)
    throw Error(ErrorCode::d_model_not_divisible, "heads", {{"d_model", to_string(c.d_model)}, {"heads", to_string(c.heads)}});
  if (c.kv_heads < 0 || c.kv_heads > c.heads)
    throw Error(ErrorCode::kv_heads_range, "kv_heads", {{"heads", to_string(c.heads)}, {"value", to_string(c.kv_heads)}});
  if (c.heads % c.kv_heads_or_heads() != 0)
    throw Error(ErrorCode::heads_not_divisible, "kv_heads", {{"heads", to_string(c.heads)}, {"kv_heads", to_string(c.kv_heads)}});
  if (!(c.rope_base >= 0) || c.rope_base > 1e30)  // also refuses NaN
    throw Error("RoPE's base must be a positive number, got " + to_string(c.rope_base));
  if (c.rope_base > 0 && c.preset != Preset::single)
    throw Error(std::string("rotary position embeddings come with one llama-layout layer, not a ") +
                preset_name(c.preset) + " model");
  if (c.rope_base > 0 && c.d_head() % 2 != 0)
    throw Error(ErrorCode::rope_odd_d_head, "heads",
                {{"d_model", to_string(c.d_model)}, {"heads", to_string(c.heads)}, {"d_head", to_string(c.d_head())}});
  if (c.vocab_size < 1) throw Error("vocab_size must be at least 1, got " + to_string(c.vocab_size));
  if (c.preset == Preset::single && c.layers != 1)
    throw Error("a single attention layer has 1 layer, got " + to_string(c.layers));
  if (c.layers < 1 || c.layers > kMaxLayers)
    throw Error("layers must be between 1 and " + to_string(kMaxLayers) + ", got " + to_string(c.layers));
  if (c.readouts < 1 || c.readouts > kMaxReadouts)
    throw Error("readouts must be between 1 and " + to_string(kMaxReadouts) + ", got " + to_string(c.readouts));
  if (c.readouts > 1 && (!has_blocks(c.preset) || ties_unembedding(c.preset)))
    throw Error(std::string("a ") + preset_name(c.preset) + " model predicts one token per position; " + to_string(c.readouts) +
                " readouts need an untied unembedding (attn-only)");
  if (has_blocks(c.preset)) {
    if (!c.causal)
      throw Error(std::string("a ") + preset_name(c.preset) + " model predicts the next token, so it is causal");
    if (c.vocab_size > kMaxVocab)
      throw Error("vocab_size must be at most " + to_string(kMaxVocab) + ", got " + to_string(c.vocab_size));
    if (c.max_positions < 1 || c.max_positions > kMaxSeq)
      throw Error("max_positions must be between 1 and " + to_string(kMaxSeq) + ", got " + to_string(c.max_positions));
  }
}

Error no_such_head(long long layer, long long head, const Config& c, const char* field) {
  using std::to_string;
  return Error(ErrorCode::no_such_head, field,
               {{"layer", to_string(layer)}, {"head", to_string(head)}, {"last_layer", to_string(c.layers - 1)},
                {"last_head", to_string(c.heads - 1)}});
}

Preset parse_preset(const char* name) {
  std::string names;
  for (const PresetSpec& p : kPresets) {
    if (std::string(name) == p.name) return p.preset;
    names += names.empty() ? p.name : std::string(", ") + p.name;
  }
  throw Error("unknown model '" + std::string(name) + "'; expected one of " + names);
}

const char* preset_name(Preset preset) { return preset_spec(preset).name; }

std::vector<std::string> preset_names(bool blocks_only) {
  std::vector<std::string> names;
  for (const PresetSpec& p : kPresets)
    if (p.blocks || !blocks_only) names.emplace_back(p.name);
  return names;
}

}  // namespace mha
