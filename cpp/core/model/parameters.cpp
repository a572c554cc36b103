#include "model/parameters.h"

#include <algorithm>
#include <cmath>

#include "base/error.h"
#include "base/random.h"
#include "model/stages.h"

namespace mha {

namespace {

using std::to_string;

bool every_model(const Config&) { return true; }
bool blocks(const Config& c) { return has_blocks(c.preset); }
bool layer_norm(const Config& c) { return has_layer_norm(c.preset); }
bool mlp(const Config& c) { return has_mlp(c.preset); }
bool untied(const Config& c) { return has_blocks(c.preset) && !ties_unembedding(c.preset); }

// Where each parameter is held (weights.h).
Tensor& wte(ModelWeights& w, int) { return w.token_table; }
Tensor& wpe(ModelWeights& w, int) { return w.position_table; }
Tensor& ln_f_weight(ModelWeights& w, int) { return w.ln_f_weight; }
Tensor& ln_f_bias(ModelWeights& w, int) { return w.ln_f_bias; }
Tensor& lm_head(ModelWeights& w, int) { return w.unembedding; }
#define MHA_BLOCK_FIELD(fn, member) \
  Tensor& fn(ModelWeights& w, int l) { return w.blocks.at(static_cast<size_t>(l)).member; }
MHA_BLOCK_FIELD(ln_1_weight, ln_1_weight)
MHA_BLOCK_FIELD(ln_1_bias, ln_1_bias)
MHA_BLOCK_FIELD(w_q, attention.w_q)
MHA_BLOCK_FIELD(b_q, attention.b_q)
MHA_BLOCK_FIELD(w_k, attention.w_k)
MHA_BLOCK_FIELD(b_k, attention.b_k)
MHA_BLOCK_FIELD(w_v, attention.w_v)
MHA_BLOCK_FIELD(b_v, attention.b_v)
MHA_BLOCK_FIELD(w_o, attention.w_o)
MHA_BLOCK_FIELD(b_o, attention.b_o)
MHA_BLOCK_FIELD(ln_2_weight, ln_2_weight)
MHA_BLOCK_FIELD(ln_2_bias, ln_2_bias)
MHA_BLOCK_FIELD(w_fc, w_fc)
MHA_BLOCK_FIELD(b_fc, b_fc)
MHA_BLOCK_FIELD(w_proj, w_proj)
MHA_BLOCK_FIELD(b_proj, b_proj)
#undef MHA_BLOCK_FIELD

// The packings (weights.h's PreparedModel).
PackedMatrix* qkv(PreparedModel& p, int l, const Config&) { return &p.blocks.at(static_cast<size_t>(l)).attention.qkv; }
PackedMatrix* out(PreparedModel& p, int l, const Config&) { return &p.blocks.at(static_cast<size_t>(l)).attention.out; }
PackedMatrix* fc(PreparedModel& p, int l, const Config&) { return &p.blocks.at(static_cast<size_t>(l)).fc; }
PackedMatrix* proj(PreparedModel& p, int l, const Config&) { return &p.blocks.at(static_cast<size_t>(l)).proj; }
PackedMatrix* unembedding(PreparedModel& p, int, const Config&) { return &p.unembedding; }
// GPT-2's wte is also its unembedding: held once, packed as the unembedding.
PackedMatrix* tied(PreparedModel& p, int, const Config& c) { return ties_unembedding(c.preset) ? &p.unembedding : nullptr; }

constexpr FileTensor kNone{};
FileTensor file(const char* name) { return {name, false, false, false}; }
FileTensor conv1d(const char* name) { return {name, true, false, false}; }     // Conv1D: (in, out)
FileTensor optional(const char* name) { return {name, false, true, false}; }  // absent: zeros

// Streams of the seed for random weights, fixed forever: a single layer's matrices take 1, 2, …
// (W_Q, W_K, W_V, W_O), a model of blocks' take 1000, 1001, … in table order.
constexpr uint64_t kFirstStreamSingle = 1, kFirstStreamBlocks = 1000;

}  // namespace

const std::vector<ParameterSpec>& parameter_table() {
  // name, per layer, shape, present, init, model file, pytorch layer, llama layer, tensor, packing
  static const std::vector<ParameterSpec> table = {
      {"wte", false, "(vocab, d_model)", blocks, Init::spread, file("wte.weight"), kNone, kNone, wte, tied},
      {"wpe", false, "(positions, d_model)", blocks, Init::spread, file("wpe.weight"), kNone, kNone, wpe, nullptr},
      {"ln_1.weight", true, "(d_model)", layer_norm, Init::ones, file("ln_1.weight"), kNone, kNone, ln_1_weight, nullptr},
      {"ln_1.bias", true, "(d_model)", layer_norm, Init::zeros, file("ln_1.bias"), kNone, kNone, ln_1_bias, nullptr},
      {"attn.w_q", true, "(d_model, d_model)", every_model, Init::spread, conv1d("attn.c_attn.weight"),
       file("in_proj_weight"), file("q_proj.weight"), w_q, qkv},
      {"attn.b_q", true, "(d_model)", every_model, Init::zeros, file("attn.c_attn.bias"), optional("in_proj_bias"),
       optional("q_proj.bias"), b_q, nullptr},
      {"attn.w_k", true, "(kv_heads·d_head, d_model)", every_model, Init::spread, conv1d("attn.c_attn.weight"),
       file("in_proj_weight"), file("k_proj.weight"), w_k, qkv},
      {"attn.b_k", true, "(kv_heads·d_head)", every_model, Init::zeros, file("attn.c_attn.bias"), optional("in_proj_bias"),
       optional("k_proj.bias"), b_k, nullptr},
      {"attn.w_v", true, "(kv_heads·d_head, d_model)", every_model, Init::spread, conv1d("attn.c_attn.weight"),
       file("in_proj_weight"), file("v_proj.weight"), w_v, qkv},
      {"attn.b_v", true, "(kv_heads·d_head)", every_model, Init::zeros, file("attn.c_attn.bias"), optional("in_proj_bias"),
       optional("v_proj.bias"), b_v, nullptr},
      {"attn.w_o", true, "(d_model, d_model)", every_model, Init::residual_spread, conv1d("attn.c_proj.weight"),
       file("out_proj.weight"), file("o_proj.weight"), w_o, out},
      {"attn.b_o", true, "(d_model)", every_model, Init::zeros, file("attn.c_proj.bias"), optional("out_proj.bias"),
       optional("o_proj.bias"), b_o, nullptr},
      {"ln_2.weight", true, "(d_model)", mlp, Init::ones, file("ln_2.weight"), kNone, kNone, ln_2_weight, nullptr},
      {"ln_2.bias", true, "(d_model)", mlp, Init::zeros, file("ln_2.bias"), kNone, kNone, ln_2_bias, nullptr},
      {"mlp.w_fc", true, "(4·d_model, d_model)", mlp, Init::spread, conv1d("mlp.c_fc.weight"), kNone, kNone, w_fc, fc},
      {"mlp.b_fc", true, "(4·d_model)", mlp, Init::zeros, file("mlp.c_fc.bias"), kNone, kNone, b_fc, nullptr},
      {"mlp.w_proj", true, "(d_model, 4·d_model)", mlp, Init::residual_spread, conv1d("mlp.c_proj.weight"), kNone, kNone,
       w_proj, proj},
      {"mlp.b_proj", true, "(d_model)", mlp, Init::zeros, file("mlp.c_proj.bias"), kNone, kNone, b_proj, nullptr},
      {"ln_f.weight", false, "(d_model)", layer_norm, Init::ones, file("ln_f.weight"), kNone, kNone, ln_f_weight, nullptr},
      {"ln_f.bias", false, "(d_model)", layer_norm, Init::zeros, file("ln_f.bias"), kNone, kNone, ln_f_bias, nullptr},
      {"lm_head", false, "(readouts·vocab, d_model)", untied, Init::spread, {"lm_head.weight", false, false, true}, kNone, kNone,
       lm_head, unembedding},
  };
  return table;
}

const FileTensor& file_tensor(const ParameterSpec& spec, FileLayout layout) {
  switch (layout) {
    case FileLayout::pytorch: return spec.pytorch;
    case FileLayout::llama: return spec.llama;
    case FileLayout::model: break;
  }
  return spec.model_file;
}

Shape parameter_shape(const ParameterSpec& spec, const Config& c) { return evaluate_shape(spec.shape, shape_dims(c)); }

namespace {

// The stable name of a parameter of block `layer`: h.{layer}.attn.w_q, or attn.w_q in a single layer.
std::string parameter_name(const ParameterSpec& spec, int layer, const Config& c) {
  if (!spec.per_layer || !has_blocks(c.preset)) return spec.name;
  return "h." + to_string(layer) + "." + spec.name;
}

// fn(spec, layer) for every parameter the config has: the model-level rows before the blocks, each
// block's rows, then the model-level rows after.
template <typename Fn>
void walk(const Config& c, const Fn& fn) {
  const std::vector<ParameterSpec>& table = parameter_table();
  const auto first_block = std::find_if(table.begin(), table.end(), [](const ParameterSpec& s) { return s.per_layer; });
  for (auto it = table.begin(); it != first_block; ++it)
    if (it->present(c)) fn(*it, -1);
  for (int l = 0; l < c.layers; ++l)
    for (auto it = first_block; it != table.end() && it->per_layer; ++it)
      if (it->present(c)) fn(*it, l);
  for (auto it = first_block; it != table.end(); ++it)
    if (!it->per_layer && it->present(c)) fn(*it, -1);
}

// Rows [begin, end) of w (n, k) out of its packing B = wᵀ, as a (end - begin, k) tensor.
Tensor unpack_rows(const PackedMatrix& b, int begin, int end) {
  Tensor w({end - begin, b.k});
  for (int r = begin; r < end; ++r) packed_get_column(b, r, w.ptr() + static_cast<size_t>(r - begin) * b.k);
  return w;
}

ModelWeights with_blocks(const Config& c) {
  ModelWeights w;
  w.blocks.resize(static_cast<size_t>(c.layers));
  return w;
}

PreparedModel prepared_with_blocks(const Config& c) {
  PreparedModel p;
  p.blocks.resize(static_cast<size_t>(c.layers));
  return p;
}

}  // namespace

void for_each_parameter(ModelWeights& w, const Config& c,
                        const std::function<void(const std::string&, const ParameterSpec&, Tensor&)>& fn) {
  walk(c, [&](const ParameterSpec& spec, int l) { fn(parameter_name(spec, l, c), spec, spec.tensor(w, l)); });
}

const Tensor& parameter_of(const ModelWeights& w, const ParameterSpec& spec, int layer) {
  return spec.tensor(const_cast<ModelWeights&>(w), layer);  // the accessor only finds the tensor
}

void for_each_parameter(const ModelWeights& w, const Config& c,
                        const std::function<void(const std::string&, const ParameterSpec&, const Tensor&)>& fn) {
  walk(c, [&](const ParameterSpec& spec, int l) { fn(parameter_name(spec, l, c), spec, parameter_of(w, spec, l)); });
}

int64_t parameter_count(const Config& c) {
  int64_t n = 0;
  walk(c, [&](const ParameterSpec& spec, int) { n += shape_numel(parameter_shape(spec, c)); });
  return static_cast<int64_t>(n);
}

ModelWeights zeros_like(const Config& c) {
  ModelWeights z = with_blocks(c);
  for_each_parameter(z, c, [&](const std::string&, const ParameterSpec& spec, Tensor& t) { t = Tensor(parameter_shape(spec, c)); });
  return z;
}

void check_model_weights(const ModelWeights& w, const Config& c) {
  validate_config(c);
  if (static_cast<int>(w.blocks.size()) != c.layers)
    throw Error("the model has " + to_string(w.blocks.size()) + " blocks; expected " + to_string(c.layers));
  for_each_parameter(w, c, [&](const std::string& name, const ParameterSpec& spec, const Tensor& t) {
    const Shape expected = parameter_shape(spec, c);
    if (t.shape != expected)
      throw Error("tensor '" + name + "' has shape " + shape_to_string(t.shape) + "; expected " + shape_to_string(expected));
    check_finite(t, "tensor '" + name + "'");
  });
}

ModelWeights random_weights(const Config& c, float init_std) {
  validate_config(c);
  const bool single = !has_blocks(c.preset);
  const float residual_std = init_std / std::sqrt(2.0f * static_cast<float>(c.layers));
  uint64_t stream = single ? kFirstStreamSingle : kFirstStreamBlocks;
  ModelWeights w = with_blocks(c);
  for_each_parameter(w, c, [&](const std::string&, const ParameterSpec& spec, Tensor& t) {
    t = Tensor(parameter_shape(spec, c));
    if (spec.init == Init::zeros) return;
    if (spec.init == Init::ones) {
      std::fill(t.data.begin(), t.data.end(), 1.0f);
      return;
    }
    const int64_t rows = t.shape[0], cols = t.shape[1];
    // A single layer: Xavier/Glorot uniform. Blocks: uniform in ±std·√3, the spread of normal(0,
    // std) from the project's specified generator, so a seed draws the same bits natively and in
    // WebAssembly (a normal draw would need libm's log and cos).
    const float bound = single ? xavier_bound(static_cast<int>(cols), static_cast<int>(rows))
                               : (spec.init == Init::residual_spread ? residual_std : init_std) * std::sqrt(3.0f);
    Rng(derive_seed(c.seed, stream++)).fill_uniform(t.ptr(), t.data.size(), -bound, bound);
  });
  return w;
}

float xavier_bound(int fan_in, int fan_out) {
  return static_cast<float>(std::sqrt(6.0 / static_cast<double>(fan_in + fan_out)));
}

std::vector<float> qkv_bias_of(const AttentionWeights& a) {
  std::vector<float> bias;
  for (const Tensor* t : {&a.b_q, &a.b_k, &a.b_v}) bias.insert(bias.end(), t->data.begin(), t->data.end());
  return bias;
}

namespace {

// Packs the matrices of `w` the table keeps packed into `p`; with `free_each`, each matrix is freed
// as soon as its packing is whole.
void pack_into(PreparedModel& p, ModelWeights& w, const Config& c, bool free_each) {
  struct Group {
    PackedMatrix* packed;
    std::vector<std::pair<const float*, int>> parts;
    std::vector<Tensor*> tensors;
  };
  std::vector<Group> groups;  // in table order, so a block's packings are made (and freed) in turn
  walk(c, [&](const ParameterSpec& spec, int l) {
    if (!spec.packed) return;
    PackedMatrix* packed = spec.packed(p, l, c);
    if (!packed) return;
    Tensor& t = spec.tensor(w, l);
    if (groups.empty() || groups.back().packed != packed) groups.push_back({packed, {}, {}});
    groups.back().parts.push_back({t.ptr(), static_cast<int>(t.shape[0])});
    groups.back().tensors.push_back(&t);
  });
  for (Group& g : groups) {
    const int k = static_cast<int>(g.tensors.front()->shape[1]);
    *g.packed = pack_transposed_stacked(g.parts, k);
    if (free_each)
      for (Tensor* t : g.tensors) *t = Tensor();
  }
  for (size_t l = 0; l < p.blocks.size(); ++l) p.blocks[l].attention.qkv_bias = qkv_bias_of(w.blocks[l].attention);
}

}  // namespace

PreparedModel prepare_model(const ModelWeights& weights, const Config& c) {
  PreparedModel p = prepared_with_blocks(c);
  pack_into(p, const_cast<ModelWeights&>(weights), c, false);  // reads the matrices, frees nothing
  return p;
}

PackedModel pack_model(ModelWeights w, const Config& c) {
  PackedModel m;
  m.packed = prepared_with_blocks(c);
  pack_into(m.packed, w, c, true);
  m.rest = std::move(w);
  return m;
}

ModelWeights unpack_model(const PackedModel& m, const Config& c) {
  ModelWeights w = m.rest;
  PreparedModel& p = const_cast<PreparedModel&>(m.packed);  // the accessors only find the packing
  walk(c, [&](const ParameterSpec& spec, int l) {
    if (!spec.packed) return;
    const PackedMatrix* packed = spec.packed(p, l, c);
    if (!packed) return;
    const int begin = packed_offset(spec, c);
    spec.tensor(w, l) = unpack_rows(*packed, begin, begin + static_cast<int>(parameter_shape(spec, c)[0]));
  });
  return w;
}

int packed_offset(const ParameterSpec& spec, const Config& c) {
  int offset = 0;
  for (const ParameterSpec& s : parameter_table()) {
    if (&s == &spec) return offset;
    if (s.packed == spec.packed && s.present(c)) offset += static_cast<int>(parameter_shape(s, c)[0]);
  }
  return offset;
}

int packed_width(const ParameterSpec& spec, const Config& c) {
  int width = 0;
  for (const ParameterSpec& s : parameter_table())
    if (s.packed == spec.packed && s.present(c)) width += static_cast<int>(parameter_shape(s, c)[0]);
  return width;
}

Shape FileTensorParts::file_shape() const {
  if (in == 0) return {out};
  return transposed ? Shape{in, out} : Shape{out, in};
}

namespace {

std::vector<FileTensorParts> file_tensors(const Config& c, FileLayout layout, const std::string& root,
                                          const std::function<std::string(int)>& block_prefix) {
  std::vector<FileTensorParts> out;
  walk(c, [&](const ParameterSpec& spec, int l) {
    const FileTensor& f = file_tensor(spec, layout);
    if (!f.name) return;
    const std::string name = (f.top_level ? "" : spec.per_layer ? block_prefix(l) : root) + f.name;
    // A tensor holding several parameters (c_attn: W_Q, W_K, W_V) is listed once, where its first is.
    auto it = std::find_if(out.begin(), out.end(), [&](const FileTensorParts& t) { return t.name == name; });
    if (it == out.end()) {
      FileTensorParts t;
      t.name = name, t.transposed = f.transposed, t.optional = f.optional, t.layer = l;
      it = out.insert(out.end(), std::move(t));
    }
    FileTensorParts& t = *it;
    const Shape shape = parameter_shape(spec, c);
    t.parts.push_back(&spec);
    t.offsets.push_back(t.out);
    t.rows.push_back(shape[0]);
    t.out += shape[0];
    t.in = shape.size() == 2 ? shape[1] : 0;
  });
  return out;
}

}  // namespace

std::vector<FileTensorParts> model_file_tensors(const Config& c, const std::string& root) {
  return file_tensors(c, FileLayout::model, root, [&](int l) { return root + "h." + to_string(l) + "."; });
}

std::vector<FileTensorParts> layer_file_tensors(const Config& c, FileLayout layout, const std::string& prefix) {
  Config one = c;
  one.layers = 1;
  std::vector<FileTensorParts> all = file_tensors(one, layout, prefix, [&](int) { return prefix; });
  // One attention layer: its per-layer rows only (a model file's tables are read apart, when present).
  all.erase(std::remove_if(all.begin(), all.end(), [](const FileTensorParts& t) { return t.layer < 0; }), all.end());
  return all;
}

void for_each_run(const FileTensorParts& t, size_t first, size_t count,
                  const std::function<void(size_t, int64_t, int64_t, size_t, size_t, bool)>& fn) {
  // The part holding row `row` of the stacked W.
  const auto part_of = [&](int64_t row) {
    return static_cast<size_t>(std::upper_bound(t.offsets.begin(), t.offsets.end(), row) - t.offsets.begin() - 1);
  };
  while (count > 0) {
    size_t run = 0;
    if (t.in == 0) {  // a vector: its parts one after another
      const int64_t i = static_cast<int64_t>(first);
      const size_t p = part_of(i);
      run = std::min<size_t>(count, static_cast<size_t>(t.offsets[p] + t.rows[p] - i));
      fn(p, i - t.offsets[p], 0, first, run, false);
    } else if (!t.transposed) {  // (out, in): along a row of W, which lies in one part
      const int64_t r = static_cast<int64_t>(first) / t.in, col = static_cast<int64_t>(first) % t.in;
      const size_t p = part_of(r);
      run = std::min<size_t>(count, static_cast<size_t>(t.in - col));
      fn(p, r - t.offsets[p], col, first, run, true);
    } else {  // (in, out): down a column of W, up to the end of its part
      const int64_t col = static_cast<int64_t>(first) / t.out, r = static_cast<int64_t>(first) % t.out;
      const size_t p = part_of(r);
      run = std::min<size_t>(count, static_cast<size_t>(t.offsets[p] + t.rows[p] - r));
      fn(p, r - t.offsets[p], col, first, run, false);
    }
    first += run, count -= run;
  }
}

std::vector<std::pair<const char*, const Tensor*>> named_weights(const AttentionWeights& w) {
  return {{"w_q", &w.w_q}, {"b_q", &w.b_q}, {"w_k", &w.w_k}, {"b_k", &w.b_k},
          {"w_v", &w.w_v}, {"b_v", &w.b_v}, {"w_o", &w.w_o}, {"b_o", &w.b_o}};
}

}  // namespace mha
