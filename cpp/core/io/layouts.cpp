#include "io/layouts.h"

#include <cmath>
#include <vector>

#include "base/error.h"

namespace mha {

namespace {

using std::to_string;

// The first prefix under which `key` exists. Real checkpoints nest the same block at different
// depths (a bare module, a layer of a model), so each layout lists the usual places.
std::string find_prefix(const SafetensorsFile& file, const std::vector<std::string>& prefixes, const std::string& key,
                        WeightLayout layout, int layer) {
  for (const auto& p : prefixes)
    if (file.has(p + key)) return p;
  std::string looked;
  for (const auto& p : prefixes) looked += (looked.empty() ? "'" : ", '") + p + key + "'";
  throw Error(std::string("no ") + layout_name(layout) + " attention weights for layer " + to_string(layer) +
              " in the file: looked for " + looked);
}

}  // namespace

Tensor read_matrix(const SafetensorsFile& file, const std::string& name, int64_t rows, int64_t cols) {
  Tensor t = file.read_float(name);
  if (t.shape != Shape{rows, cols})
    throw Error("tensor '" + name + "' has shape " + shape_to_string(t.shape) + "; expected " +
                shape_to_string({rows, cols}));
  return t;
}

Tensor read_vector_or_zeros(const SafetensorsFile& file, const std::string& name, int64_t n) {
  if (!file.has(name)) return Tensor({n});
  Tensor t = file.read_float(name);
  if (t.shape != Shape{n})
    throw Error("tensor '" + name + "' has shape " + shape_to_string(t.shape) + "; expected " + shape_to_string({n}));
  return t;
}

Tensor rows_of(const Tensor& m, int64_t begin, int64_t count) {
  const int64_t cols = m.shape[1];
  return Tensor({count, cols}, std::vector<float>(m.data.begin() + begin * cols, m.data.begin() + (begin + count) * cols));
}

Tensor slice(const Tensor& v, int64_t begin, int64_t count) {
  return Tensor({count}, std::vector<float>(v.data.begin() + begin, v.data.begin() + begin + count));
}

Tensor transposed(const Tensor& m) {
  const int64_t rows = m.shape[0], cols = m.shape[1];
  Tensor t({cols, rows});
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) t.data[c * rows + r] = m.data[r * cols + c];
  return t;
}

namespace {

int64_t leading_dim(const SafetensorsFile& file, const std::string& name, size_t rank_expected) {
  const Shape& s = file.entry(name).shape;
  if (s.size() != rank_expected || s[0] < 1)
    throw Error("tensor '" + name + "' has shape " + shape_to_string(s) + "; expected a " + to_string(rank_expected) +
                "-d matrix");
  return s[0];
}

void load_pytorch(const SafetensorsFile& f, int layer, LoadedWeights& out) {
  const std::string l = to_string(layer);
  const std::string p = find_prefix(f, {"", "self_attn.", "layers." + l + ".self_attn.",
                                        "encoder.layers." + l + ".self_attn."},
                                    "in_proj_weight", WeightLayout::pytorch, layer);
  const int64_t d = f.entry(p + "in_proj_weight").shape.size() == 2 ? f.entry(p + "in_proj_weight").shape[1] : 0;
  if (d < 1) throw Error("tensor '" + p + "in_proj_weight' is not a (3·d_model, d_model) matrix");
  const Tensor w = read_matrix(f, p + "in_proj_weight", 3 * d, d);
  const Tensor b = read_vector_or_zeros(f, p + "in_proj_bias", 3 * d);
  AttentionWeights& a = out.attention;
  a.w_q = rows_of(w, 0, d), a.w_k = rows_of(w, d, d), a.w_v = rows_of(w, 2 * d, d);
  a.b_q = slice(b, 0, d), a.b_k = slice(b, d, d), a.b_v = slice(b, 2 * d, d);
  a.w_o = read_matrix(f, p + "out_proj.weight", d, d);
  a.b_o = read_vector_or_zeros(f, p + "out_proj.bias", d);
  out.d_model = static_cast<int>(d);
}

// Hugging Face keeps rope_theta in config.json; a file made for us may carry it in __metadata__.
double rope_base_of(const SafetensorsFile& f) {
  const auto it = f.metadata().find("rope_theta");
  if (it == f.metadata().end()) return kDefaultRopeBase;
  size_t used = 0;
  double base = 0;
  try {
    base = std::stod(it->second, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != it->second.size() || !(base > 0) || !std::isfinite(base))
    throw Error("__metadata__ rope_theta is '" + it->second + "'; expected a positive number such as 10000");
  return base;
}

void load_llama(const SafetensorsFile& f, int layer, LoadedWeights& out) {
  const std::string l = to_string(layer);
  const std::string p = find_prefix(f, {"", "self_attn.", "model.layers." + l + ".self_attn.",
                                        "layers." + l + ".self_attn."},
                                    "q_proj.weight", WeightLayout::llama, layer);
  const int64_t d = leading_dim(f, p + "q_proj.weight", 2);
  const int64_t kv = leading_dim(f, p + "k_proj.weight", 2);
  AttentionWeights& a = out.attention;
  a.w_q = read_matrix(f, p + "q_proj.weight", d, d);
  a.w_k = read_matrix(f, p + "k_proj.weight", kv, d);
  a.w_v = read_matrix(f, p + "v_proj.weight", kv, d);
  a.w_o = read_matrix(f, p + "o_proj.weight", d, d);
  // Llama has no biases; some descendants (Qwen2) keep them on Q, K and V.
  a.b_q = read_vector_or_zeros(f, p + "q_proj.bias", d);
  a.b_k = read_vector_or_zeros(f, p + "k_proj.bias", kv);
  a.b_v = read_vector_or_zeros(f, p + "v_proj.bias", kv);
  a.b_o = read_vector_or_zeros(f, p + "o_proj.bias", d);
  out.d_model = static_cast<int>(d);
  out.rope_base = rope_base_of(f);
}

void load_gpt2(const SafetensorsFile& f, int layer, LoadedWeights& out) {
  const std::string l = to_string(layer);
  const std::string p = find_prefix(f, {"h." + l + ".attn.", "transformer.h." + l + ".attn.", "attn."},
                                    "c_attn.weight", WeightLayout::gpt2, layer);
  const int64_t d = leading_dim(f, p + "c_attn.weight", 2);
  // Conv1D stores W as (in, out) for y = x·W + b; transposing gives our (out, in).
  const Tensor w = transposed(read_matrix(f, p + "c_attn.weight", d, 3 * d));
  const Tensor b = read_vector_or_zeros(f, p + "c_attn.bias", 3 * d);
  AttentionWeights& a = out.attention;
  a.w_q = rows_of(w, 0, d), a.w_k = rows_of(w, d, d), a.w_v = rows_of(w, 2 * d, d);
  a.b_q = slice(b, 0, d), a.b_k = slice(b, d, d), a.b_v = slice(b, 2 * d, d);
  a.w_o = transposed(read_matrix(f, p + "c_proj.weight", d, d));
  a.b_o = read_vector_or_zeros(f, p + "c_proj.bias", d);
  out.d_model = static_cast<int>(d);

  const std::string root = p.rfind("transformer.", 0) == 0 ? "transformer." : "";
  for (auto [name, table] : {std::pair{"wte.weight", &out.token_table}, std::pair{"wpe.weight", &out.position_table}}) {
    if (!f.has(root + name)) continue;
    const int64_t rows = leading_dim(f, root + name, 2);
    *table = read_matrix(f, root + name, rows, d);
    check_finite(*table, "tensor '" + root + name + "'");
  }
}

}  // namespace

WeightLayout parse_layout(const std::string& name) {
  if (name == "pytorch") return WeightLayout::pytorch;
  if (name == "llama") return WeightLayout::llama;
  if (name == "gpt2") return WeightLayout::gpt2;
  if (name == "attn-only") return WeightLayout::attn_only;
  throw Error("unknown weight layout '" + name + "'; expected pytorch, llama, gpt2 or attn-only");
}

const char* layout_name(WeightLayout layout) {
  switch (layout) {
    case WeightLayout::pytorch: return "pytorch";
    case WeightLayout::llama: return "llama";
    case WeightLayout::gpt2: return "gpt2";
    case WeightLayout::attn_only: return "attn-only";
  }
  return "?";
}

LoadedWeights load_weights_layer(const SafetensorsFile& file, WeightLayout layout, int layer, int heads, int kv_heads) {
  if (layer < 0) throw Error("layer must be 0 or more, got " + to_string(layer));
  LoadedWeights out;
  switch (layout) {
    case WeightLayout::pytorch: load_pytorch(file, layer, out); break;
    case WeightLayout::llama: load_llama(file, layer, out); break;
    case WeightLayout::gpt2:
    case WeightLayout::attn_only: load_gpt2(file, layer, out); break;  // the same attention names
  }
  Config c;
  c.d_model = out.d_model;
  c.heads = heads;
  validate_config(c);
  const int kv_rows = static_cast<int>(out.attention.w_k.shape[0]);
  if (kv_rows % c.d_head() != 0)
    throw Error("K projection has " + to_string(kv_rows) + " rows, not a multiple of d_head " + to_string(c.d_head()));
  const int file_kv_heads = kv_rows / c.d_head();
  if (kv_heads != 0 && kv_heads != file_kv_heads)
    throw Error("kv_heads is " + to_string(kv_heads) + " but the file's K projection has " + to_string(kv_rows) +
                " rows = " + to_string(file_kv_heads) + " heads of d_head " + to_string(c.d_head()));
  c.kv_heads = file_kv_heads;
  validate_config(c);
  check_attention_weights(out.attention, c);
  out.kv_heads = file_kv_heads;
  return out;
}

}  // namespace mha
