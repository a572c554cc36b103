#include "io/model_file.h"

#include <optional>

#include "base/error.h"
#include "io/layouts.h"

namespace mha {

using std::to_string;

LoadedModel read_model(const SafetensorsFile& f, Preset preset, int heads, const ModelConfigFile* config) {
  ModelBuilder builder(f, preset, heads, config);
  for (const TensorRead& r : builder.needed())
    builder.add(r.name, f.data_of(r.name), r.end - r.begin);
  return builder.finish();
}

Preset whole_model_preset(const SafetensorsHeader& f, const std::string& layout) {
  const std::string chosen = layout.empty() ? guess_layout(f) : layout;
  const std::optional<Preset> preset = layout_spec(parse_layout(chosen)).whole_model;  // an unknown name: the layouts' error
  if (!preset) throw file_error(ErrorCode::file_is_one_layer, f.name(), {{"layout", chosen}});
  return *preset;
}

std::string guess_layout(const SafetensorsHeader& f) {
  const auto any_with = [&](const std::string& part) {
    for (const std::string& name : f.names())
      if (name.find(part) != std::string::npos) return true;
    return false;
  };
  if (any_with("c_attn.weight")) {
    if (any_with("ln_1.weight") || any_with("ln_f.weight")) return "gpt2";
    if (f.has("lm_head.weight")) return "attn-only";
    return "gpt2";  // a lone GPT-2 attention layer
  }
  if (any_with("q_proj.weight")) return "llama";
  if (any_with("in_proj_weight")) return "pytorch";
  throw file_error(ErrorCode::layout_unknown, f.name());
}

void check_writable(const Config& c) {
  if (c.kv_heads_or_heads() != c.heads)
    throw Error("kv_heads " + to_string(c.kv_heads_or_heads()) + " with heads " + to_string(c.heads) +
                ": a model of fewer key/value heads than query heads has no file (GPT-2's fused c_attn, which the model file "
                "keeps, holds as many keys and values as queries)");
}

std::vector<uint8_t> write_model(const ModelWeights& w, const Config& c, const std::map<std::string, std::string>& metadata) {
  check_model_weights(w, c);
  check_writable(c);
  SafetensorsWriter out;
  for (const FileTensorParts& t : model_file_tensors(c, "")) {
    Tensor file(t.file_shape());
    for_each_run(t, 0, file.numel(), [&](size_t part, int64_t row, int64_t col, size_t at, size_t n, bool along_row) {
      const Tensor& p = parameter_of(w, *t.parts[part], t.layer);
      const int64_t width = p.shape.size() == 2 ? p.shape[1] : 1;
      for (size_t i = 0; i < n; ++i)
        file.data[at + i] = along_row ? p.data[static_cast<size_t>(row * width + col) + i]
                                      : p.data[static_cast<size_t>((row + static_cast<int64_t>(i)) * width + col)];
    });
    out.add(t.name, file);
  }
  out.set_metadata("format", "mha-model");
  out.set_metadata("layout", preset_name(c.preset));
  out.set_metadata("heads", to_string(c.heads));
  out.set_metadata("layers", to_string(c.layers));
  if (c.readouts > 1) {  // K readouts per position: the recall task's model (model_builder.cpp reads it back)
    out.set_metadata("task", "recall");
    out.set_metadata("recall", to_string(c.readouts));
  }
  for (const auto& [key, value] : metadata) out.set_metadata(key, value);
  return out.bytes();
}

}  // namespace mha
