#include "io/model_builder.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <tuple>
#include <utility>

#include "base/error.h"

namespace mha {

namespace {

using std::to_string;

std::string root_of(const SafetensorsHeader& f) {
  if (f.has("wte.weight")) return "";
  if (f.has("transformer.wte.weight")) return "transformer.";
  throw file_error(ErrorCode::model_no_token_table, f.name());
}

// A size read off the file, refused with its real value when over the core's limit.
int within_limit(const SafetensorsHeader& f, const char* size, int64_t value, int64_t max) {
  if (value > max)
    throw file_error(ErrorCode::model_over_limit, f.name(),
                     {{"size", size}, {"value", to_string(value)}, {"max", to_string(max)}});
  return static_cast<int>(value);
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
      throw tensor_error(ErrorCode::model_bad_block_name, f.name(), name, {{"prefix", prefix}});
    blocks.insert(std::stoi(index));
  }
  if (blocks.empty()) throw tensor_error(ErrorCode::model_no_blocks, f.name(), prefix + "0.attn.c_attn.weight");
  const int n = within_limit(f, "layers", *blocks.rbegin() + 1, kMaxLayers);
  for (int i = 0; i < n; ++i)
    if (!blocks.count(i))
      throw file_error(ErrorCode::model_block_missing, f.name(),
                       {{"last", to_string(n - 1)}, {"missing", to_string(i)}, {"prefix", prefix}});
  return n;
}

// A __metadata__ value that must be a whole number from 1 to max written plainly ("2abc", "1.9" and
// "02" are not 2, 1 and 2), else `code` naming the file and the value.
int metadata_count(const SafetensorsHeader& f, const std::string& text, int max, ErrorCode code) {
  const bool digits = !text.empty() && text.size() <= to_string(max).size() &&
                      text.find_first_not_of("0123456789") == std::string::npos && text[0] != '0';
  if (!digits || std::stoi(text) > max) throw file_error(code, f.name(), {{"value", printable(text, 40)}, {"max", to_string(max)}});
  return std::stoi(text);
}

// The tokens a model predicts per position: 1, or K for a file whose __metadata__ says task "recall"
// and recall K (model_file.cpp writes them).
int readouts_from(const SafetensorsHeader& f) {
  const auto task = f.metadata().find("task");
  if (task == f.metadata().end() || task->second != "recall") return 1;
  const auto k = f.metadata().find("recall");
  return metadata_count(f, k == f.metadata().end() ? "" : k->second, kMaxReadouts, ErrorCode::metadata_bad_recall);
}

// heads and where they came from (HeadsSource), in that order of precedence: the caller's, config.json's
// n_head, the file's __metadata__ "heads" (a whole number written plainly: "2abc" and "1.9" are not 2
// and 1), d_model / 64 for GPT-2.
std::pair<int, HeadsSource> choose_heads(const SafetensorsHeader& f, int heads, const ModelConfigFile* config, Preset preset,
                                         int d_model) {
  if (heads < 0 || heads > kMaxHeads)
    throw Error(ErrorCode::out_of_range, "heads",
                {{"min", "1"}, {"max", to_string(kMaxHeads)}, {"value", to_string(heads)}});
  if (heads > 0) return {heads, HeadsSource::given};
  const auto it = f.metadata().find("heads");
  if (config && config->heads > 0) {
    if (it != f.metadata().end() && it->second != to_string(config->heads))
      throw file_error(ErrorCode::config_heads_disagree, config->name,
                       {{"heads", to_string(config->heads)}, {"model", printable(f.name(), 200)}, {"value", printable(it->second, 40)}});
    return {config->heads, HeadsSource::config_json};
  }
  if (it != f.metadata().end())
    return {metadata_count(f, it->second, kMaxHeads, ErrorCode::metadata_bad_heads), HeadsSource::metadata};
  if (preset == Preset::gpt2 && d_model % kGpt2DHead == 0) return {d_model / kGpt2DHead, HeadsSource::gpt2_d_head};
  throw file_error(ErrorCode::model_no_heads, f.name());
}

// A config.json must describe this file's model: a size it says and the header contradicts is
// another model's config.
void check_config(const ModelConfigFile& config, const std::string& model, const Config& c, int64_t vocab_rows,
                  int64_t position_rows) {
  const auto same = [&](const char* key, int said, int64_t is) {
    if (said > 0 && said != is)
      throw file_error(ErrorCode::config_other_model, config.name,
                       {{"key", key}, {"said", to_string(said)}, {"model", printable(model, 200)}, {"value", to_string(is)}});
  };
  same("n_embd", config.d_model, c.d_model);
  same("n_layer", config.layers, c.layers);
  same("vocab_size", config.vocab, vocab_rows);
  same("n_positions", config.positions, position_rows);
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

const char* heads_source_name(HeadsSource source) {
  switch (source) {
    case HeadsSource::given: return "given";
    case HeadsSource::config_json: return "config.json";
    case HeadsSource::metadata: return "metadata";
    case HeadsSource::gpt2_d_head: return "gpt2-d-head";
  }
  return "?";
}

ModelBuilder::ModelBuilder(const SafetensorsHeader& f, Preset preset, int heads, const ModelConfigFile* config) {
  if (!has_blocks(preset)) throw Error("read_model reads attn-only or gpt2 models");
  file_ = f.name();
  const std::string root = root_of(f);
  Config& c = model_.config;
  c.preset = preset;
  c.causal = true;
  const auto table = [&](const std::string& name, const char* expected) {
    const Shape& shape = f.entry(name).shape;  // tensor_missing when it is not there
    if (shape.size() != 2 || shape[0] < 1 || shape[1] < 1)
      throw tensor_error(ErrorCode::tensor_wrong_shape, f.name(), name,
                         {{"shape", shape_to_string(shape)}, {"expected", expected}});
    return shape;
  };
  const Shape wte = table(root + "wte.weight", "(vocab, d_model)");
  const Shape wpe = table(root + "wpe.weight", "(positions, d_model)");
  c.d_model = within_limit(f, "d_model", wte[1], kMaxDModel);
  c.vocab_size = within_limit(f, "vocab_size", wte[0], kMaxVocab);
  c.max_positions = within_limit(f, "max_positions", wpe[0], kMaxSeq);
  c.layers = count_layers(f, root);
  if (config) check_config(*config, f.name(), c, wte[0], wpe[0]);
  std::tie(c.heads, model_.heads_from) = choose_heads(f, heads, config, preset, c.d_model);
  c.readouts = readouts_from(f);
  const auto said = [&](const char* key) {
    const auto it = f.metadata().find(key);
    return it == f.metadata().end() ? std::string() : it->second;
  };
  model_.first_appearance = said("tokenizer") == "first-appearance";
  if (said("task") == "induction" || (said("task").empty() && model_.first_appearance)) model_.task = "induction";
  if (said("task") == "recall") model_.task = "recall";
  if (said("tokenizer") == "chars" || said("tokenizer") == "words") {
    Vocabulary vocabulary = parse_vocabulary(said("vocabulary"), f.name() + "'s __metadata__ vocabulary");
    if (vocabulary.kind != said("tokenizer")) throw Error(f.name() + ": __metadata__ says tokenizer " + said("tokenizer") + " but its vocabulary is " + vocabulary.kind);
    if (static_cast<int64_t>(vocabulary.tokens.size()) != wte[0])
      throw Error(f.name() + ": its vocabulary has " + to_string(vocabulary.tokens.size()) + " tokens, its token table " + to_string(wte[0]) + " rows");
    model_.vocabulary = std::make_shared<VocabTokenizer>(std::move(vocabulary));
    model_.task = "corpus";
  }
  validate_config(c);  // before any tensor: heads that do not divide d_model, too many positions

  // Every check first, then the allocation: a broken file costs no memory. Which tensors the file
  // must hold, their shapes and the parameters in each come from parameters.h's table.
  ModelWeights& w = model_.weights.rest;
  PreparedModel& p = model_.weights.packed;
  w.blocks.resize(static_cast<size_t>(c.layers));
  p.blocks.resize(static_cast<size_t>(c.layers));
  for (FileTensorParts& parts : model_file_tensors(c, root)) {
    const SafetensorsEntry& e = f.entry(parts.name);  // tensor_missing when it is not there
    Target t;
    t.dtype = float_dtype(f, parts.name);  // before the shape, as SafetensorsFile::read_float checks it
    if (e.shape != parts.file_shape())
      throw tensor_error(ErrorCode::tensor_wrong_shape, f.name(), parts.name,
                         {{"shape", shape_to_string(e.shape)}, {"expected", shape_to_string(parts.file_shape())}});
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
  if (it == targets_.end()) throw Error("the model does not use a tensor '" + printable(name) + "'");
  Target& t = it->second;
  const size_t width = float_dtype_size(t.dtype);
  if (size % width != 0 || t.received + size > t.bytes)
    throw Error("tensor '" + printable(name) + "': " + to_string(size) + " more bytes after " + to_string(t.received) +
                " do not fit its " + to_string(t.bytes) + " in whole values");
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
    check_finite_values(file_, name, values, n, first + done);
    place(t, first + done, values, n);
    done += n;
  }
  t.received += size;
}

LoadedModel ModelBuilder::finish() {
  if (finished_) throw Error("the model is already built");
  for (const auto& [name, t] : targets_)
    if (t.received != t.bytes)
      throw Error("tensor '" + printable(name) + "' is incomplete: " + to_string(t.received) + " of its " +
                  to_string(t.bytes) + " bytes were given");
  // Every value was checked as it came (add), every shape before (the constructor).
  for (size_t i = 0; i < model_.weights.packed.blocks.size(); ++i)
    model_.weights.packed.blocks[i].attention.qkv_bias = qkv_bias_of(model_.weights.rest.blocks[i].attention);
  finished_ = true;
  targets_.clear();
  return std::move(model_);
}

}  // namespace mha
