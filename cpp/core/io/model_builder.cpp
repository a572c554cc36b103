#include "io/model_builder.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>

#include "base/error.h"

namespace mha {

namespace {

using std::to_string;

std::string root_of(const SafetensorsHeader& f) {
  if (f.has("wte.weight")) return "";
  if (f.has("transformer.wte.weight")) return "transformer.";
  throw Error("no token table in the file: looked for 'wte.weight' and 'transformer.wte.weight'");
}

// Every block the file names, found from all its h.N. tensors rather than by counting up to the first
// gap: a file with block 1's c_attn deleted, or blocks 0 and 2 only, or a stray h.2.ln_1.weight, is
// broken, and reading it as a shorter model would run something the file's author never trained.
int count_layers(const SafetensorsHeader& f, const std::string& root) {
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

int heads_from(const SafetensorsHeader& f, int heads) {
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

ModelBuilder::Target& ModelBuilder::need(const SafetensorsHeader& f, const std::string& name, const Shape& file_shape,
                                         const std::string& missing) {
  if (!f.has(name)) throw Error(missing.empty() ? "the file has no tensor '" + name + "'" : missing);
  const SafetensorsEntry& e = f.entry(name);
  Target t;
  t.dtype = float_dtype(e.dtype, name);  // before the shape, as SafetensorsFile::read_float checks it
  if (e.shape != file_shape)
    throw Error("tensor '" + name + "' has shape " + shape_to_string(e.shape) + "; expected " + shape_to_string(file_shape));
  t.rows = file_shape[0];
  t.cols = file_shape.size() == 2 ? file_shape[1] : 1;
  t.bytes = e.end - e.begin;
  needed_.push_back({name, e.dtype, f.data_begin() + e.begin, f.data_begin() + e.end});
  return targets_[name] = std::move(t);
}

void ModelBuilder::need_tensors(const SafetensorsHeader& f, const std::string& name, const Shape& file_shape,
                                std::vector<Tensor*> parts, const std::string& missing) {
  Target& t = need(f, name, file_shape, missing);
  const int64_t part_rows = t.rows / static_cast<int64_t>(parts.size());
  t.part_shape = file_shape.size() == 2 ? Shape{part_rows, t.cols} : Shape{part_rows};
  t.parts = std::move(parts);
}

void ModelBuilder::need_packed(const SafetensorsHeader& f, const std::string& name, const Shape& file_shape,
                               PackedMatrix* packed, bool file_is_b, const std::string& missing) {
  Target& t = need(f, name, file_shape, missing);
  t.packed = packed;
  t.file_is_b = file_is_b;
}

void ModelBuilder::place(Target& t, size_t first, const float* values, size_t count) {
  while (count > 0) {
    size_t run = 0;
    if (!t.packed) {  // the parts one after the other
      const size_t part = t.parts[0]->numel(), index = first / part, at = first % part;
      run = std::min(count, part - at);
      std::memcpy(t.parts[index]->ptr() + at, values, sizeof(float) * run);
    } else {  // up to the end of the file's row r
      const int r = static_cast<int>(first / static_cast<size_t>(t.cols)), c = static_cast<int>(first % static_cast<size_t>(t.cols));
      run = std::min(count, static_cast<size_t>(t.cols - c));
      if (t.file_is_b)
        packed_set_row(*t.packed, r, c, values, static_cast<int>(run));
      else
        packed_set_column(*t.packed, r, c, values, static_cast<int>(run));
    }
    first += run, values += run, count -= run;
  }
}

ModelBuilder::ModelBuilder(const SafetensorsHeader& f, Preset preset, int heads) {
  if (!has_blocks(preset)) throw Error("read_model reads attn-only or gpt2 models");
  const std::string root = root_of(f);
  Config& c = model_.config;
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
  const auto tokenizer = f.metadata().find("tokenizer");
  model_.first_appearance = tokenizer != f.metadata().end() && tokenizer->second == "first-appearance";
  validate_config(c);  // before any tensor: heads that do not divide d_model, too many positions

  // Every check first, then the allocation: a broken file costs no memory. Conv1D weights are
  // (in, out) in the file: B = Wᵀ of our (out, in), what the packing holds.
  ModelWeights& w = model_.weights.rest;
  PreparedModel& p = model_.weights.packed;
  w.blocks.resize(c.layers);
  p.blocks.resize(c.layers);
  // GPT-2 ties the unembedding to wte: wte is read once, into the packed unembedding.
  if (preset == Preset::gpt2)
    need_packed(f, root + "wte.weight", {c.vocab_size, d}, &p.unembedding, false);
  else
    need_tensors(f, root + "wte.weight", {c.vocab_size, d}, {&w.token_table});
  need_tensors(f, root + "wpe.weight", {c.max_positions, d}, {&w.position_table});
  for (int i = 0; i < c.layers; ++i) {
    const std::string h = root + "h." + to_string(i) + ".";
    BlockWeights& b = w.blocks[i];
    AttentionWeights& a = b.attention;
    PreparedBlock& pb = p.blocks[i];
    // c_attn (d, 3d): columns q | k | v, as the fused packing has them. Biases are required: GPT-2's
    // checkpoints and our own write_model always have them, so a missing one means a damaged file, not a zero bias.
    need_packed(f, h + "attn.c_attn.weight", {d, 3 * d}, &pb.attention.qkv, true);
    need_tensors(f, h + "attn.c_attn.bias", {3 * d}, {&a.b_q, &a.b_k, &a.b_v});
    need_packed(f, h + "attn.c_proj.weight", {d, d}, &pb.attention.out, true);
    need_tensors(f, h + "attn.c_proj.bias", {d}, {&a.b_o});
    if (has_layer_norm(preset)) {
      need_tensors(f, h + "ln_1.weight", {d}, {&b.ln_1_weight}), need_tensors(f, h + "ln_1.bias", {d}, {&b.ln_1_bias});
      need_tensors(f, h + "ln_2.weight", {d}, {&b.ln_2_weight}), need_tensors(f, h + "ln_2.bias", {d}, {&b.ln_2_bias});
    }
    if (has_mlp(preset)) {
      need_packed(f, h + "mlp.c_fc.weight", {d, 4 * d}, &pb.fc, true);
      need_tensors(f, h + "mlp.c_fc.bias", {4 * d}, {&b.b_fc});
      need_packed(f, h + "mlp.c_proj.weight", {4 * d, d}, &pb.proj, true);
      need_tensors(f, h + "mlp.c_proj.bias", {d}, {&b.b_proj});
    }
  }
  if (has_layer_norm(preset)) {
    need_tensors(f, root + "ln_f.weight", {d}, {&w.ln_f_weight});
    need_tensors(f, root + "ln_f.bias", {d}, {&w.ln_f_bias});
  }
  if (preset == Preset::attn_only)
    need_packed(f, "lm_head.weight", {c.vocab_size, d}, &p.unembedding, false,
                "the file has no unembedding 'lm_head.weight' (an attn-only model's)");

  for (auto& [name, t] : targets_) {
    for (Tensor* part : t.parts) *part = Tensor(t.part_shape);
    const int rows = static_cast<int>(t.rows), cols = static_cast<int>(t.cols);
    if (t.packed) *t.packed = t.file_is_b ? packed_zeros(rows, cols) : packed_zeros(cols, rows);
  }
  std::sort(needed_.begin(), needed_.end(), [](const TensorRead& a, const TensorRead& b) { return a.begin < b.begin; });
}

size_t ModelBuilder::needed_bytes() const {
  size_t total = 0;
  for (const TensorRead& r : needed_) total += r.end - r.begin;
  return total;
}

void ModelBuilder::add(const std::string& name, const uint8_t* bytes, size_t size) {
  if (finished_) throw Error("the model is already built");
  const auto it = targets_.find(name);
  if (it == targets_.end()) throw Error("the model does not use a tensor '" + name + "'");
  Target& t = it->second;
  const size_t width = float_dtype_size(t.dtype);
  if (size % width != 0 || t.received + size > t.bytes)
    throw Error("tensor '" + name + "': " + to_string(size) + " more bytes after " + to_string(t.received) + " do not fit its " +
                to_string(t.bytes) + " in whole values");
  const size_t first = t.received / width, count = size / width;
  // A chunk at a time: converted, checked, put in place.
  constexpr size_t kChunk = 2048;
  float values[kChunk];
  for (size_t done = 0; done < count;) {
    const size_t n = std::min(kChunk, count - done);
    const uint8_t* src = bytes + done * width;
    if (t.dtype == FloatDtype::f32)
      std::memcpy(values, src, sizeof(float) * n);
    else
      for (size_t i = 0; i < n; ++i) values[i] = to_float32(src + i * width, t.dtype);
    uint32_t bad = 0;  // all exponent bits set: NaN or infinity (branch-free, as check_finite)
    for (size_t i = 0; i < n; ++i) {
      uint32_t bits;
      std::memcpy(&bits, values + i, sizeof bits);
      bad |= static_cast<uint32_t>((bits & 0x7f800000u) == 0x7f800000u);
    }
    if (bad)
      for (size_t i = 0; i < n; ++i)
        if (!std::isfinite(values[i]))
          throw Error("tensor '" + name + "' contains " + (std::isnan(values[i]) ? "NaN" : "infinity") + " at flat index " +
                      to_string(first + done + i));
    place(t, first + done, values, n);
    done += n;
  }
  t.received += size;
}

LoadedModel ModelBuilder::finish() {
  if (finished_) throw Error("the model is already built");
  for (const auto& [name, t] : targets_)
    if (t.received != t.bytes)
      throw Error("tensor '" + name + "' is incomplete: " + to_string(t.received) + " of its " + to_string(t.bytes) +
                  " bytes were given");
  // Every value was checked as it came (add), every shape before (the constructor).
  for (size_t i = 0; i < model_.weights.packed.blocks.size(); ++i) {
    const AttentionWeights& a = model_.weights.rest.blocks[i].attention;
    std::vector<float>& bias = model_.weights.packed.blocks[i].attention.qkv_bias;  // b_Q | b_K | b_V, as the packing's columns
    for (const Tensor* t : {&a.b_q, &a.b_k, &a.b_v}) bias.insert(bias.end(), t->data.begin(), t->data.end());
  }
  finished_ = true;
  targets_.clear();
  return std::move(model_);
}

}  // namespace mha
