#include "io/model_file.h"

#include "base/error.h"
#include "io/layouts.h"
#include "io/model_builder.h"

namespace mha {

using std::to_string;

LoadedModel read_model(const SafetensorsFile& f, Preset preset, int heads) {
  ModelBuilder builder(f, preset, heads);
  for (const TensorRead& r : builder.needed())
    builder.add(r.name, f.data_of(r.name), r.end - r.begin);
  return builder.finish();
}

Preset whole_model_preset(const SafetensorsHeader& f, const std::string& layout) {
  const std::string chosen = layout.empty() ? guess_layout(f) : layout;
  if (chosen == "pytorch" || chosen == "llama")
    throw Error("the file holds one " + chosen + " attention layer, not a whole model: load it as weights");
  return parse_layout(chosen) == WeightLayout::gpt2 ? Preset::gpt2 : Preset::attn_only;
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
  throw Error("cannot tell the file's layout: it has none of c_attn.weight (GPT-2), q_proj.weight (Llama) or "
              "in_proj_weight (PyTorch)");
}

std::vector<uint8_t> write_model(const ModelWeights& w, const Config& c, const std::map<std::string, std::string>& metadata) {
  check_model_weights(w, c);
  if (c.kv_heads_or_heads() != c.heads) throw Error("GPT-2's fused c_attn holds ordinary multi-head attention only");
  SafetensorsWriter out;
  out.add("wte.weight", w.token_table);
  out.add("wpe.weight", w.position_table);
  for (int i = 0; i < c.layers; ++i) {
    const std::string h = "h." + to_string(i) + ".";
    const BlockWeights& b = w.blocks[i];
    const AttentionWeights& a = b.attention;
    if (has_layer_norm(c.preset)) out.add(h + "ln_1.weight", b.ln_1_weight), out.add(h + "ln_1.bias", b.ln_1_bias);
    Tensor qkv({3 * static_cast<int64_t>(c.d_model), c.d_model});
    std::vector<float> qkv_bias;
    size_t at = 0;
    for (const Tensor* t : {&a.w_q, &a.w_k, &a.w_v}) {
      std::copy(t->data.begin(), t->data.end(), qkv.data.begin() + static_cast<std::ptrdiff_t>(at));
      at += t->numel();
    }
    for (const Tensor* t : {&a.b_q, &a.b_k, &a.b_v}) qkv_bias.insert(qkv_bias.end(), t->data.begin(), t->data.end());
    out.add(h + "attn.c_attn.weight", transposed(qkv));
    out.add(h + "attn.c_attn.bias", Tensor({static_cast<int64_t>(qkv_bias.size())}, qkv_bias));
    out.add(h + "attn.c_proj.weight", transposed(a.w_o));
    out.add(h + "attn.c_proj.bias", a.b_o);
    if (has_mlp(c.preset)) {
      out.add(h + "ln_2.weight", b.ln_2_weight), out.add(h + "ln_2.bias", b.ln_2_bias);
      out.add(h + "mlp.c_fc.weight", transposed(b.w_fc)), out.add(h + "mlp.c_fc.bias", b.b_fc);
      out.add(h + "mlp.c_proj.weight", transposed(b.w_proj)), out.add(h + "mlp.c_proj.bias", b.b_proj);
    }
  }
  if (has_layer_norm(c.preset)) out.add("ln_f.weight", w.ln_f_weight), out.add("ln_f.bias", w.ln_f_bias);
  if (c.preset == Preset::attn_only) out.add("lm_head.weight", w.unembedding);
  out.set_metadata("format", "mha-model");
  out.set_metadata("layout", preset_name(c.preset));
  out.set_metadata("heads", to_string(c.heads));
  out.set_metadata("layers", to_string(c.layers));
  for (const auto& [key, value] : metadata) out.set_metadata(key, value);
  return out.bytes();
}

}  // namespace mha
