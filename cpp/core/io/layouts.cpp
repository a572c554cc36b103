#include "io/layouts.h"

#include <cmath>
#include <vector>

#include "base/error.h"
#include "model/parameters.h"

namespace mha {

namespace {

using std::to_string;

// The row's prefixes with {N} read as `layer`.
std::vector<std::string> prefixes(const LayoutSpec& layout, int layer) {
  std::vector<std::string> out;
  for (const char* pattern : layout.prefixes) {
    if (!pattern) break;
    std::string p = pattern;
    if (const size_t at = p.find("{N}"); at != std::string::npos) p.replace(at, 3, to_string(layer));
    out.push_back(std::move(p));
  }
  return out;
}

const ParameterSpec& spec_named(const char* name) {
  for (const ParameterSpec& s : parameter_table())
    if (std::string(s.name) == name) return s;
  throw Error(std::string("internal: no parameter ") + name);
}

// The first prefix under which the layer's W_Q tensor exists.
std::string find_prefix(const SafetensorsFile& file, const LayoutSpec& layout, int layer) {
  const std::string key = file_tensor(spec_named("attn.w_q"), layout.columns).name;
  std::string looked;
  for (const std::string& p : prefixes(layout, layer)) {
    if (file.has(p + key)) return p;
    looked += (looked.empty() ? "'" : ", '") + p + key + "'";
  }
  throw file_error(ErrorCode::layer_not_found, file.name(),
                   {{"layout", layout.name}, {"layer", to_string(layer)}, {"looked", looked}});
}

// The size of W's output (transposed: the file's columns) or input dimension of a 2-d file tensor.
int64_t dim_of(const SafetensorsFile& file, const std::string& name, bool transposed, bool out) {
  const Shape& s = file.entry(name).shape;
  if (s.size() != 2 || s[0] < 1 || s[1] < 1)
    throw tensor_error(ErrorCode::tensor_wrong_shape, file.name(), name,
                       {{"shape", shape_to_string(s)}, {"expected", "(rows, columns)"}});
  return s[(out != transposed) ? 0 : 1];
}

// d_model and the key/value width, read off the file: W_Q's input is d_model. A layout that fuses
// W_K with W_Q (PyTorch's in_proj, GPT-2's c_attn) holds ordinary multi-head attention, K as wide as
// Q; one that keeps W_K apart (Llama) says its width by W_K's rows, fewer for grouped-query heads.
std::pair<int64_t, int64_t> sizes_of(const SafetensorsFile& file, FileLayout layout, const std::string& prefix) {
  const FileTensor& q = file_tensor(spec_named("attn.w_q"), layout);
  const FileTensor& k = file_tensor(spec_named("attn.w_k"), layout);
  const int64_t d = dim_of(file, prefix + q.name, q.transposed, false);
  if (std::string(q.name) == k.name) return {d, d};
  return {d, dim_of(file, prefix + k.name, k.transposed, true)};
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
    throw file_error(ErrorCode::metadata_bad_rope_theta, f.name(), {{"value", printable(it->second, 40)}});
  return base;
}

// GPT-2's token and position tables beside its layers, used for text when present.
void read_tables(const SafetensorsFile& f, const std::string& prefix, LoadedWeights& out) {
  const std::string root = prefix.rfind("transformer.", 0) == 0 ? "transformer." : "";
  for (auto [name, table] : {std::pair{"wte.weight", &out.token_table}, std::pair{"wpe.weight", &out.position_table}}) {
    if (!f.has(root + name)) continue;
    dim_of(f, root + name, false, true);
    Tensor t = f.read_float(root + name);
    if (t.shape[1] != out.d_model)
      throw tensor_error(ErrorCode::tensor_wrong_shape, f.name(), root + name,
                         {{"shape", shape_to_string(t.shape)}, {"expected", "(rows, " + to_string(out.d_model) + ")"}});
    check_finite_values(f.name(), root + name, t.ptr(), t.numel());
    *table = std::move(t);
  }
}

}  // namespace

namespace {
// A model with blocks is saved in its preset's layout and read back by it, so each has exactly one.
constexpr bool one_layout_per_preset_with_blocks() {
  for (const PresetSpec& p : kPresets) {
    int rows = 0;
    for (const LayoutSpec& l : kLayouts) rows += l.whole_model == p.preset;
    if (rows != (p.blocks ? 1 : 0)) return false;
  }
  return true;
}
static_assert(one_layout_per_preset_with_blocks(), "kLayouts must have one whole-model row per preset with blocks");

// "a, b or c": the rows' names for which `keep` holds, in order.
template <typename Keep>
std::string listed(Keep keep) {
  std::vector<std::string> names;
  for (const LayoutSpec& l : kLayouts)
    if (keep(l)) names.emplace_back(l.name);
  return or_list(names);
}
}  // namespace

WeightLayout parse_layout(const std::string& name) {
  for (const LayoutSpec& l : kLayouts)
    if (name == l.name) return l.layout;
  throw Error("unknown weight layout '" + name + "'; expected " + listed([](const LayoutSpec&) { return true; }));
}

const char* layout_name(WeightLayout layout) { return layout_spec(layout).name; }

std::vector<std::string> layout_names() {
  std::vector<std::string> names;
  for (const LayoutSpec& l : kLayouts) names.emplace_back(l.name);
  return names;
}

WeightLayout whole_model_layout(Preset preset) {
  for (const LayoutSpec& l : kLayouts)
    if (l.whole_model == preset) return l.layout;
  throw Error(std::string("a ") + preset_name(preset) + " model has no file layout of its own");
}

std::string whole_model_layout_names() {
  return listed([](const LayoutSpec& l) { return l.whole_model.has_value(); });
}

std::string rope_layout_names() {
  return listed([](const LayoutSpec& l) { return l.rope; });
}

LoadedWeights load_weights_layer(const SafetensorsFile& file, WeightLayout layout, int layer, int heads, int kv_heads) {
  if (layer < 0) throw Error("layer must be 0 or more, got " + to_string(layer));
  const LayoutSpec& spec = layout_spec(layout);
  const FileLayout where = spec.columns;
  const std::string prefix = find_prefix(file, spec, layer);
  const auto [d, kv] = sizes_of(file, where, prefix);
  if (d > kMaxDModel)
    throw file_error(ErrorCode::model_over_limit, file.name(),
                     {{"size", "d_model"}, {"value", to_string(d)}, {"max", to_string(kMaxDModel)}});
  Config c;
  c.d_model = static_cast<int>(d);
  c.heads = heads;
  validate_config(c);
  if (kv % c.d_head() != 0)
    throw file_error(ErrorCode::kv_rows_not_multiple, file.name(),
                     {{"rows", to_string(kv)}, {"d_head", to_string(c.d_head())}});
  const int file_kv_heads = static_cast<int>(kv / c.d_head());
  if (kv_heads != 0 && kv_heads != file_kv_heads)
    throw Error(ErrorCode::kv_heads_file_mismatch, "kv_heads",
                {{"file", printable(file.name(), 200)},
                 {"kv_heads", to_string(kv_heads)},
                 {"rows", to_string(kv)},
                 {"file_kv_heads", to_string(file_kv_heads)},
                 {"d_head", to_string(c.d_head())}});
  c.kv_heads = file_kv_heads;
  validate_config(c);

  ModelWeights w;
  w.blocks.resize(1);
  bool biases = true;
  for (const FileTensorParts& t : layer_file_tensors(c, where, prefix)) {
    for (const ParameterSpec* spec : t.parts) spec->tensor(w, 0) = Tensor(parameter_shape(*spec, c));
    if (!file.has(t.name)) {
      biases = biases && !t.optional;
      if (t.optional) continue;  // zeros (Llama has no biases)
    }
    const Tensor values = file.read_float(t.name);                           // tensor_missing when it is not there
    check_finite_values(file.name(), t.name, values.ptr(), values.numel());  // its index in the file's tensor
    if (values.shape != t.file_shape())
      throw tensor_error(ErrorCode::tensor_wrong_shape, file.name(), t.name,
                         {{"shape", shape_to_string(values.shape)}, {"expected", shape_to_string(t.file_shape())}});
    for_each_run(t, 0, values.numel(), [&](size_t part, int64_t row, int64_t col, size_t at, size_t n, bool along_row) {
      Tensor& p = t.parts[part]->tensor(w, 0);
      const int64_t width = p.shape.size() == 2 ? p.shape[1] : 1;
      for (size_t i = 0; i < n; ++i)
        p.data[static_cast<size_t>(along_row ? row * width + col + static_cast<int64_t>(i) : (row + static_cast<int64_t>(i)) * width + col)] =
            values.data[at + i];
    });
  }
  check_model_weights(w, c);

  LoadedWeights out;
  out.d_model = c.d_model;
  out.kv_heads = file_kv_heads;
  out.rope_base = spec.rope ? rope_base_of(file) : 0;
  out.biases = biases;
  out.attention = std::move(w.blocks[0].attention);
  if (where == FileLayout::model) read_tables(file, prefix, out);
  return out;
}

}  // namespace mha
