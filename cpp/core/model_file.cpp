#include "model_file.h"

#include <set>

#include "error.h"
#include "layouts.h"

namespace mha {

namespace {

using std::to_string;

std::string root_of(const SafetensorsFile& f) {
  if (f.has("wte.weight")) return "";
  if (f.has("transformer.wte.weight")) return "transformer.";
  throw Error("no token table in the file: looked for 'wte.weight' and 'transformer.wte.weight'");
}

Tensor read_vector(const SafetensorsFile& f, const std::string& name, int64_t n) {
  if (!f.has(name)) throw Error("the file has no tensor '" + name + "'");
  return read_vector_or_zeros(f, name, n);
}

// A Conv1D weight (in, out) as our (out, in).
Tensor read_conv1d(const SafetensorsFile& f, const std::string& name, int64_t in, int64_t out) {
  if (!f.has(name)) throw Error("the file has no tensor '" + name + "'");
  return transposed(read_matrix(f, name, in, out));
}

// Every block the file names, found from all its h.N. tensors rather than by counting up to the first
// gap: a file with block 1's c_attn deleted, or blocks 0 and 2 only, or a stray h.2.ln_1.weight, is
// broken, and reading it as a shorter model would run something the file's author never trained.
int count_layers(const SafetensorsFile& f, const std::string& root) {
  const std::string prefix = root + "h.";
  std::set<int> blocks;
  for (const std::string& name : f.names()) {
    if (name.rfind(prefix, 0) != 0) continue;
    const size_t begin = prefix.size(), dot = name.find('.', begin);
    const std::string index = name.substr(begin, dot == std::string::npos ? std::string::npos : dot - begin);
    if (dot == std::string::npos || index.empty() || index.size() > 6 ||
        index.find_first_not_of("0123456789") != std::string::npos)
      throw Error("tensor '" + name + "' is not named " + prefix + "{block}.…");
    blocks.insert(std::stoi(index));
  }
  if (blocks.empty()) throw Error("no blocks in the file: looked for '" + prefix + "0.attn.c_attn.weight'");
  const int n = *blocks.rbegin() + 1;
  if (n > kMaxLayers) throw Error("the file has " + to_string(n) + " blocks; at most " + to_string(kMaxLayers) + " are supported");
  for (int i = 0; i < n; ++i)
    if (!blocks.count(i))
      throw Error("the file has block " + to_string(n - 1) + " but no tensor of block " + to_string(i) + " ('" + prefix +
                  to_string(i) + ".…')");
  return n;
}

int heads_from(const SafetensorsFile& f, int heads) {
  if (heads > 0) return heads;
  const auto it = f.metadata().find("heads");
  if (it == f.metadata().end())
    throw Error("the file does not say how many heads its layers have: give --heads (12 for GPT-2 small)");
  try {
    return std::stoi(it->second);
  } catch (const std::exception&) {
    throw Error("the file's __metadata__ heads is '" + it->second + "', not a number");
  }
}

}  // namespace

LoadedModel read_model(const SafetensorsFile& f, Preset preset, int heads) {
  if (!has_blocks(preset)) throw Error("read_model reads attn-only or gpt2 models");
  const std::string root = root_of(f);
  LoadedModel m;
  Config& c = m.config;
  c.preset = preset;
  c.causal = true;
  const Shape& wte = f.entry(root + "wte.weight").shape;
  if (wte.size() != 2 || wte[0] < 1 || wte[1] < 1)
    throw Error("tensor '" + root + "wte.weight' has shape " + shape_to_string(wte) + "; expected (vocab, d_model)");
  if (!f.has(root + "wpe.weight")) throw Error("the file has no position table '" + root + "wpe.weight'");
  const Shape& wpe = f.entry(root + "wpe.weight").shape;
  if (wpe.size() != 2 || wpe[0] < 1)
    throw Error("tensor '" + root + "wpe.weight' has shape " + shape_to_string(wpe) + "; expected (positions, d_model)");
  const int64_t d = wte[1];
  if (d > kMaxDModel) throw Error("d_model " + to_string(d) + " is over the limit of " + to_string(kMaxDModel));
  c.d_model = static_cast<int>(d);
  c.vocab_size = static_cast<int>(std::min<int64_t>(wte[0], kMaxVocab + int64_t{1}));
  c.max_positions = static_cast<int>(std::min<int64_t>(wpe[0], kMaxSeq + int64_t{1}));
  c.layers = count_layers(f, root);
  c.heads = heads_from(f, heads);
  validate_config(c);  // before any large read: heads that do not divide d_model, too many positions

  ModelWeights& w = m.weights;
  w.token_table = read_matrix(f, root + "wte.weight", c.vocab_size, d);
  w.position_table = read_matrix(f, root + "wpe.weight", c.max_positions, d);
  for (int i = 0; i < c.layers; ++i) {
    const std::string h = root + "h." + to_string(i) + ".";
    BlockWeights b;
    // c_attn (d, 3d) as (3d, d): rows q | k | v
    const Tensor qkv = read_conv1d(f, h + "attn.c_attn.weight", d, 3 * d);
    // Biases are required: GPT-2's checkpoints and our own write_model always have them, so a
    // missing one means a damaged file, not a zero bias.
    const Tensor qkv_bias = read_vector(f, h + "attn.c_attn.bias", 3 * d);
    AttentionWeights& a = b.attention;
    a.w_q = rows_of(qkv, 0, d), a.w_k = rows_of(qkv, d, d), a.w_v = rows_of(qkv, 2 * d, d);
    a.b_q = slice(qkv_bias, 0, d), a.b_k = slice(qkv_bias, d, d), a.b_v = slice(qkv_bias, 2 * d, d);
    a.w_o = read_conv1d(f, h + "attn.c_proj.weight", d, d);
    a.b_o = read_vector(f, h + "attn.c_proj.bias", d);
    if (has_layer_norm(preset)) {
      b.ln_1_weight = read_vector(f, h + "ln_1.weight", d), b.ln_1_bias = read_vector(f, h + "ln_1.bias", d);
      b.ln_2_weight = read_vector(f, h + "ln_2.weight", d), b.ln_2_bias = read_vector(f, h + "ln_2.bias", d);
    }
    if (has_mlp(preset)) {
      b.w_fc = read_conv1d(f, h + "mlp.c_fc.weight", d, 4 * d);
      b.b_fc = read_vector(f, h + "mlp.c_fc.bias", 4 * d);
      b.w_proj = read_conv1d(f, h + "mlp.c_proj.weight", 4 * d, d);
      b.b_proj = read_vector(f, h + "mlp.c_proj.bias", d);
    }
    w.blocks.push_back(std::move(b));
  }
  if (has_layer_norm(preset)) {
    w.ln_f_weight = read_vector(f, root + "ln_f.weight", d);
    w.ln_f_bias = read_vector(f, root + "ln_f.bias", d);
  }
  if (preset == Preset::attn_only) {
    if (!f.has("lm_head.weight")) throw Error("the file has no unembedding 'lm_head.weight' (an attn-only model's)");
    w.unembedding = read_matrix(f, "lm_head.weight", c.vocab_size, d);
  }
  check_model_weights(w, c);
  return m;
}

std::string guess_layout(const SafetensorsFile& f) {
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
