// The layouts a safetensors file's names may be in, and loading one attention layer from them under
// the names each ecosystem uses (the names are parameters.h's table's; this file finds the layer's
// prefix and reads the sizes off the file).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/config.h"
#include "io/safetensors.h"
#include "model/parameters.h"
#include "model/weights.h"

namespace mha {

// The names a file's tensors go by, each a row of kLayouts below (in the enum's order): the single
// attention layers other ecosystems save, and one whole-model layout per preset with blocks, named
// after it (model_file.h writes a model in its preset's layout and reads it back by that name).
enum class WeightLayout { pytorch, llama, gpt2, attn_only };

struct LayoutSpec {
  WeightLayout layout;
  const char* name;     // as the CLI, the module and a model file's "layout" metadata say it
  FileLayout columns;   // the column of the parameter table that holds its tensors' names
  // Where checkpoints keep layer {N}'s attention, tried in order: the same module nests at different
  // depths (a bare module, a layer of a model).
  const char* prefixes[4];
  std::optional<Preset> whole_model;  // the preset its files are read as; none: one attention layer only
  bool rope;            // rotary position embeddings: __metadata__'s rope_theta, else kDefaultRopeBase
};

// The row of a preset with blocks: our own names (GPT-2's) and the preset's name, so the two cannot differ.
constexpr LayoutSpec preset_layout(WeightLayout layout, Preset preset) {
  return {layout, preset_spec(preset).name, FileLayout::model, {"h.{N}.", "transformer.h.{N}.", ""}, preset, false};
}

inline constexpr LayoutSpec kLayouts[] = {
    // nn.MultiheadAttention: in_proj_weight [3d, d], in_proj_bias, out_proj.weight/.bias
    {WeightLayout::pytorch, "pytorch", FileLayout::pytorch,
     {"", "self_attn.", "layers.{N}.self_attn.", "encoder.layers.{N}.self_attn."}, std::nullopt, false},
    // q_proj/k_proj/v_proj/o_proj.weight, biases if present, K/V may be grouped
    {WeightLayout::llama, "llama", FileLayout::llama,
     {"", "self_attn.", "model.layers.{N}.self_attn.", "layers.{N}.self_attn."}, std::nullopt, true},
    // h.{N}.attn.c_attn.weight [d, 3d] (Conv1D: y = x·W + b), c_attn.bias, c_proj.weight/.bias; also
    // read as one GPT-2 attention layer
    preset_layout(WeightLayout::gpt2, Preset::gpt2),
    // GPT-2's names without LayerNorm or MLP, plus lm_head.weight [vocab, d]
    preset_layout(WeightLayout::attn_only, Preset::attn_only),
};
static_assert(in_enum_order(kLayouts, &LayoutSpec::layout), "kLayouts must have one row per WeightLayout, in the enum's order");
constexpr const LayoutSpec& layout_spec(WeightLayout l) { return kLayouts[static_cast<int>(l)]; }

WeightLayout parse_layout(const std::string& name);  // a row's name, else mha::Error listing them
const char* layout_name(WeightLayout layout);
std::vector<std::string> layout_names();  // every row's name, in order (the CLI's choices)
WeightLayout whole_model_layout(Preset preset);  // the layout a preset with blocks is saved in
std::string whole_model_layout_names();          // "gpt2 or attn-only": the layouts a whole model is read in
std::string rope_layout_names();                 // "llama": the layouts whose attention rotates q and k

struct LoadedWeights {
  int d_model = 0;         // read off the projection shapes
  int kv_heads = 0;        // read off K's rows for llama; = heads otherwise
  double rope_base = 0;    // llama: __metadata__'s rope_theta, else kDefaultRopeBase; other layouts: 0 (no RoPE)
  AttentionWeights attention;
  Tensor token_table;      // (vocab, d_model) when the file has one (GPT-2's wte), else empty
  Tensor position_table;   // (n_positions, d_model) when the file has one (GPT-2's wpe), else empty
  bool biases = true;      // false when the file has none (Llama's): they are zeros
};

// `layer` picks h.{layer} / model.layers.{layer} when names carry a layer prefix; bare names are
// also accepted. `heads` splits d_model; `kv_heads` (0 = read it off the file) is checked against
// the file. Throws mha::Error naming the missing or misshapen tensor.
LoadedWeights load_weights_layer(const SafetensorsFile& file, WeightLayout layout, int layer, int heads, int kv_heads);

}  // namespace mha
