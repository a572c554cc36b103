#include "io/trace_file.h"

#include <nlohmann/json.hpp>

#include "io/safetensors.h"

namespace mha {

std::vector<uint8_t> trace_to_safetensors(const Trace& trace, const AttentionWeights* w, const Config& c) {
  SafetensorsWriter out;
  nlohmann::json stages = nlohmann::json::object();
  for (const TraceEntry& e : trace.entries()) {
    out.add(e.name, e.tensor);
    stages[e.name] = stage_name(e.stage);
  }
  if (!trace.ids.empty()) {
    out.add_int64("ids", {1, static_cast<int64_t>(trace.ids.size())},
                  std::vector<int64_t>(trace.ids.begin(), trace.ids.end()));
    stages["ids"] = stage_name(Stage::tokenize);
  }
  if (w)
    for (const auto& [name, tensor] : named_weights(*w)) out.add(name, *tensor);

  out.set_metadata("format", "mha-trace");
  out.set_metadata("format_version", "1");
  out.set_metadata("model", preset_name(c.preset));
  out.set_metadata("layers", std::to_string(c.layers));
  out.set_metadata("d_model", std::to_string(c.d_model));
  out.set_metadata("heads", std::to_string(c.heads));
  out.set_metadata("kv_heads", std::to_string(c.kv_heads_or_heads()));
  out.set_metadata("causal", c.causal ? "true" : "false");
  if (c.rope_base > 0) out.set_metadata("rope_theta", nlohmann::json(c.rope_base).dump());
  out.set_metadata("seed", std::to_string(c.seed));
  out.set_metadata("vocab_size", std::to_string(c.vocab_size));
  out.set_metadata("tokens", nlohmann::json(trace.tokens).dump());
  out.set_metadata("stages", stages.dump());
  out.set_metadata("convention", "y = x·Wᵀ + b; x = token_embedding + position_encoding");
  return out.bytes();
}

}  // namespace mha
