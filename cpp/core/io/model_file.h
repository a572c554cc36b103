// Whole models in safetensors under GPT-2's Hugging Face names, read and written.
//   gpt2:       wte.weight (vocab, d), wpe.weight (positions, d), h.{i}.ln_1.{weight,bias},
//               h.{i}.attn.c_attn.{weight (d, 3d), bias}, h.{i}.attn.c_proj.{weight (d, d), bias},
//               h.{i}.ln_2.*, h.{i}.mlp.c_fc.{weight (d, 4d), bias}, h.{i}.mlp.c_proj.{weight (4d, d), bias},
//               ln_f.*; all under an optional "transformer." prefix. Conv1D weights are (in, out).
//   attn-only:  wte, wpe, h.{i}.attn.* as above, and lm_head.weight (vocab, d) (nn.Linear: (out, in));
//               a recall model's is (K·vocab, d), its __metadata__ saying task "recall" and recall K.
// Every block 0 … N−1 must be whole, biases included (a gap, a stray h.{N}. tensor or a missing bias is an
// error, not a shorter model or a zero bias). Other tensors (Hugging Face's attn.bias mask buffers, heads of
// other tasks) are ignored.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "io/model_builder.h"
#include "io/safetensors.h"
#include "model/parameters.h"

namespace mha {

// `preset` is attn_only or gpt2. heads: 0 = from config.json (`config`, when given), __metadata__'s
// "heads", or d_model / 64 for gpt2 (model_builder.h's HeadsSource); an error when none says.
// Throws mha::Error naming the missing or misshapen tensor, or the inconsistent layer.
// A ModelBuilder (model_builder.h) fed from the bytes in hand.
LoadedModel read_model(const SafetensorsFile& file, Preset preset, int heads, const ModelConfigFile* config = nullptr);

// The preset a whole model is read as: `layout` the name of a whole-model layout (kLayouts), or "" to
// guess it from the names. A layout of one attention layer (pytorch, llama) is an mha::Error saying to
// load it as weights.
Preset whole_model_preset(const SafetensorsHeader& file, const std::string& layout);

// The layout a file's names imply: gpt2 (has ln_f / ln_1), attn-only (has lm_head.weight and no LayerNorm),
// llama (q_proj), pytorch (in_proj_weight); mha::Error when none fits.
std::string guess_layout(const SafetensorsHeader& file);

// Throws where a model of this config has no file of the project's to be written to (GQA: GPT-2's fused
// c_attn holds as many keys and values as queries): write_model asks it, and so does `mha train`
// before it trains, not after. A Trainer of such a model still trains: its heads can be looked at.
void check_writable(const Config& config);

// The model in the layout of its preset, with heads, layers (task and recall for K > 1 readouts) and
// `metadata` in __metadata__.
std::vector<uint8_t> write_model(const ModelWeights& weights, const Config& config,
                                 const std::map<std::string, std::string>& metadata = {});

}  // namespace mha
