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

// The tokens a model predicts per position: 1, or K for a file whose __metadata__ says task "recall"
// and recall K (model_file.cpp writes them).
int readouts_from(const SafetensorsHeader& f) {
  const auto task = f.metadata().find("task");
  if (task == f.metadata().end() || task->second != "recall") return 1;
  const auto k = f.metadata().find("recall");
  const std::string value = k == f.metadata().end() ? "" : k->second;
  if (value.empty() || value.size() > 3 || value.find_first_not_of("0123456789") != std::string::npos)
    throw Error("the file's __metadata__ says task recall but its recall is '" + value + "', not the number of readouts");
  return std::stoi(value);
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

void ModelBuilder::place(const Target& t, size_t first, const float* values, size_t count) {
  const Config& c = model_.config;
  for_each_run(t.parts, first, count, [&](size_t part, int64_t row, int64_t col, size_t at, size_t n, bool along_row) {
    const ParameterSpec& spec = *t.parts.parts[part];
    const float* v = values + (at - first);
    if (PackedMatrix* packed = spec.packed ? spec.packed(model_.weights.packed, t.parts.layer, c) : nullptr) {
      // W's row r is the packing's column offset + r; W's column is its k
      const int column = packed_offset(spec, c) + static_cast<int>(row);
      if (along_row)
        packed_set_column(*packed, column, static_cast<int>(col), v, static_cast<int>(n));
      else
        packed_set_row(*packed, static_cast<int>(col), column, v, static_cast<int>(n));
      return;
    }
    Tensor& tensor = spec.tensor(model_.weights.rest, t.parts.layer);
    const int64_t width = tensor.shape.size() == 2 ? tensor.shape[1] : 1;
    if (along_row || width == 1)
      std::memcpy(tensor.ptr() + row * width + col, v, sizeof(float) * n);
    else
      for (size_t i = 0; i < n; ++i) tensor.data[static_cast<size_t>((row + static_cast<int64_t>(i)) * width + col)] = v[i];
  });
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
  c.readouts = readouts_from(f);
  const auto tokenizer = f.metadata().find("tokenizer");
  model_.first_appearance = tokenizer != f.metadata().end() && tokenizer->second == "first-appearance";
  validate_config(c);  // before any tensor: heads that do not divide d_model, too many positions

  // Every check first, then the allocation: a broken file costs no memory. Which tensors the file
  // must hold, their shapes and the parameters in each come from parameters.h's table.
  ModelWeights& w = model_.weights.rest;
  PreparedModel& p = model_.weights.packed;
  w.blocks.resize(static_cast<size_t>(c.layers));
  p.blocks.resize(static_cast<size_t>(c.layers));
  for (FileTensorParts& parts : model_file_tensors(c, root)) {
    if (!f.has(parts.name)) throw Error("the file has no tensor '" + parts.name + "'");
    const SafetensorsEntry& e = f.entry(parts.name);
    Target t;
    t.dtype = float_dtype(e.dtype, parts.name);  // before the shape, as SafetensorsFile::read_float checks it
    if (e.shape != parts.file_shape())
      throw Error("tensor '" + parts.name + "' has shape " + shape_to_string(e.shape) + "; expected " +
                  shape_to_string(parts.file_shape()));
    t.bytes = e.end - e.begin;
    needed_.push_back({parts.name, e.dtype, f.data_begin() + e.begin, f.data_begin() + e.end});
    t.parts = std::move(parts);
    targets_[t.parts.name] = std::move(t);
  }
  for (auto& [name, t] : targets_)
    for (const ParameterSpec* spec : t.parts.parts) {
      PackedMatrix* packed = spec->packed ? spec->packed(p, t.parts.layer, c) : nullptr;
      const Shape shape = parameter_shape(*spec, c);
      if (!packed) spec->tensor(w, t.parts.layer) = Tensor(shape);
      else if (packed->data.empty()) *packed = packed_zeros(static_cast<int>(shape[1]), packed_width(*spec, c));
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
  for (size_t i = 0; i < model_.weights.packed.blocks.size(); ++i)
    model_.weights.packed.blocks[i].attention.qkv_bias = qkv_bias_of(model_.weights.rest.blocks[i].attention);
  finished_ = true;
  targets_.clear();
  return std::move(model_);
}

}  // namespace mha
