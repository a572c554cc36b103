// Loading one attention layer from safetensors under the names each ecosystem uses (the names
// are parameters.h's table's; this file finds the layer's prefix and reads the sizes off the file).
#pragma once

#include <string>
#include <vector>

#include "io/safetensors.h"
#include "model/weights.h"

namespace mha {

enum class WeightLayout {
  pytorch,  // nn.MultiheadAttention: in_proj_weight [3d, d], in_proj_bias, out_proj.weight/.bias
  llama,    // q_proj/k_proj/v_proj/o_proj.weight, biases if present, K/V may be grouped
  gpt2,     // h.{N}.attn.c_attn.weight [d, 3d] (Conv1D: y = x·W + b), c_attn.bias, c_proj.weight/.bias
  attn_only,  // GPT-2's names without LayerNorm or MLP, plus lm_head.weight [vocab, d] (model_file.h)
};

WeightLayout parse_layout(const std::string& name);  // "pytorch" | "llama" | "gpt2" | "attn-only", else mha::Error
const char* layout_name(WeightLayout layout);
std::vector<std::string> layout_names();  // every layout's name, in the enum's order (the CLI's choices)

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
