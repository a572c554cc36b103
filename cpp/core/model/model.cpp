#include "model/model.h"

#include <algorithm>
#include <optional>
#include <string>

#include "model/embedding.h"
#include "base/error.h"
#include "io/model_file.h"

namespace mha {

namespace {

std::shared_ptr<const Tokenizer> default_tokenizer(const Config& c) {
  if (c.preset == Preset::single) return std::make_shared<CharWordTokenizer>(c.vocab_size);
  if (c.preset == Preset::attn_only) return std::make_shared<FirstAppearanceTokenizer>(c.vocab_size);
  return nullptr;  // GPT-2 reads text with GPT-2's own tokenizer, given with set_tokenizer
}

// Random weights learnt no vocabulary, so any numbering of the tokens is as good as GPT-2's: a
// random GPT-2-style model reads text by first appearance too, as the trained model does.
std::shared_ptr<const Tokenizer> seeded_tokenizer(const Config& c) {
  if (c.preset == Preset::gpt2) return std::make_shared<FirstAppearanceTokenizer>(c.vocab_size);
  return default_tokenizer(c);
}

}  // namespace

Model::Model(const Config& config) : config_(config) {
  config_.rope_base = 0;  // RoPE comes with llama weights; seeded ones have none (a base from the last file stays there)
  validate_config(config_);
  weights_ = std::make_shared<const PackedModel>(pack_model(random_weights(config_, kRandomModelInitStd), config_));
  seeded_ = true;
  tokenizer_ = seeded_tokenizer(config_);
  source_.heads_from = heads_source_name(HeadsSource::given);
}

void Model::set_tokenizer(std::shared_ptr<const Tokenizer> tokenizer) {
  if (tokenizer && tokenizer->vocab_size() > config_.vocab_size)
    throw Error(ErrorCode::tokenizer_vocab_mismatch, "tokenizer",
                {{"tokenizer", std::to_string(tokenizer->vocab_size())}, {"vocab", std::to_string(config_.vocab_size)}});
  tokenizer_ = std::move(tokenizer);
}

void Model::configure(const Config& asked) {
  Config config = asked;
  config.rope_base = config_.rope_base;  // the weights', not a setting (config.h)
  validate_config(config);
  const Config& now = config_;
  if (seeded_) {
    const bool same_weights = config.preset == now.preset && config.layers == now.layers &&
                              config.d_model == now.d_model && config.kv_dim() == now.kv_dim() &&
                              config.seed == now.seed && (!has_blocks(config.preset) || config.vocab_size == now.vocab_size);
    if (!same_weights) {
      *this = Model(config);
      return;
    }
    if (config.vocab_size != now.vocab_size) tokenizer_ = seeded_tokenizer(config);
    config_ = config;
    return;
  }
  // Loaded or trained weights: only what their shapes allow.
  using std::to_string;
  // field: the setting refused; value: what the weights fix it at (the page says it in either language).
  const auto refuse = [](const char* field, const std::string& value, const char* name = nullptr) {
    ErrorParams params = {{"value", value}};
    if (name) params["name"] = name;
    throw Error(ErrorCode::fixed_by_weights, field, params);
  };
  if (config.preset != now.preset) refuse("model", preset_name(now.preset));
  if (config.d_model != now.d_model) refuse("d_model", to_string(now.d_model));
  if (config.layers != now.layers) refuse("layers", to_string(now.layers));
  if (config.kv_dim() != now.kv_dim()) refuse("kv_dim", to_string(now.kv_dim()), "the key/value width (kv_heads · d_head)");
  const bool table = has_blocks(now.preset) || !weights_->rest.token_table.data.empty();
  if (table && config.vocab_size != now.vocab_size) refuse("vocab_size", to_string(now.vocab_size));
  if (has_blocks(now.preset) && config.max_positions != now.max_positions)
    refuse("max_positions", to_string(now.max_positions));
  if (config.vocab_size != now.vocab_size && tokenizer_) tokenizer_ = default_tokenizer(config);
  if (config.heads != now.heads) source_.heads_from = heads_source_name(HeadsSource::given);
  config_ = config;
}

Model Model::from_safetensors(const Config& base, const uint8_t* bytes, size_t size, WeightLayout layout, int layer,
                              const std::string& name) {
  const SafetensorsFile file(bytes, size, name);
  if (base.rope_base > 0 && !layout_spec(layout).rope)
    throw Error("a RoPE base goes with " + rope_layout_names() + "-layout weights; " + layout_name(layout) +
                " attention has no rotary position embeddings");
  LoadedWeights loaded = load_weights_layer(file, layout, layer, base.heads, base.kv_heads);
  Model m;
  m.config_ = base;
  m.config_.preset = Preset::single;
  m.config_.layers = 1;
  m.config_.d_model = loaded.d_model;
  m.config_.kv_heads = loaded.kv_heads;
  m.config_.rope_base = base.rope_base > 0 ? base.rope_base : loaded.rope_base;
  if (!loaded.token_table.data.empty()) m.config_.vocab_size = static_cast<int>(loaded.token_table.shape[0]);
  validate_config(m.config_);
  ModelWeights weights;
  weights.blocks.resize(1);
  weights.blocks[0].attention = std::move(loaded.attention);
  weights.token_table = std::move(loaded.token_table);
  weights.position_table = std::move(loaded.position_table);
  m.weights_ = std::make_shared<const PackedModel>(pack_model(std::move(weights), m.config_));
  m.tokenizer_ = default_tokenizer(m.config_);
  m.source_.layout = layout_name(layout);
  m.source_.biases = loaded.biases;
  m.source_.heads_from = heads_source_name(HeadsSource::given);
  return m;
}

Model Model::from_model_file(const uint8_t* bytes, size_t size, WeightLayout layout, int heads, const std::string& name,
                             const ModelConfigFile* config) {
  const std::optional<Preset> preset = layout_spec(layout).whole_model;
  if (!preset) throw Error("a whole model is read in the " + whole_model_layout_names() + " layout, not " + layout_name(layout));
  const SafetensorsFile file(bytes, size, name);
  LoadedModel loaded = read_model(file, *preset, heads, config);
  return from_loaded(std::move(loaded));
}

Model Model::from_loaded(LoadedModel loaded) {
  Model m;
  m.config_ = loaded.config;
  m.weights_ = std::make_shared<const PackedModel>(std::move(loaded.weights));  // checked by the ModelBuilder that made it
  if (loaded.vocabulary) m.tokenizer_ = loaded.vocabulary;
  else m.tokenizer_ = loaded.first_appearance ? std::make_shared<FirstAppearanceTokenizer>(m.config_.vocab_size)
                                              : default_tokenizer(m.config_);
  m.source_.layout = preset_name(m.config_.preset);  // a whole model's layout is named after its preset
  m.source_.task = loaded.task;
  m.source_.heads_from = heads_source_name(loaded.heads_from);
  return m;
}

ModelFacts Model::facts() const {
  ModelFacts f = source_;
  f.loaded = !seeded_;
  f.tokenizer = tokenizer_ ? tokenizer_->kind() : "";
  // Models with blocks read every row from a table; a single layer draws scaled rows unless its file brought a table.
  f.token_table = has_blocks(config_.preset) || !weights_->rest.token_table.data.empty() ? "table" : "scaled";
  f.positions = has_blocks(config_.preset) || has_learned_positions() ? "table" : "sinusoidal";
  return f;
}

Model Model::from_weights(const Config& config, ModelWeights weights) {
  check_model_weights(weights, config);
  Model m;
  m.config_ = config;
  m.weights_ = std::make_shared<const PackedModel>(pack_model(std::move(weights), config));
  m.tokenizer_ = default_tokenizer(config);
  m.source_.layout = has_blocks(config.preset) ? preset_name(config.preset) : "";
  m.source_.heads_from = heads_source_name(HeadsSource::given);
  return m;
}

void Model::load_weights(const uint8_t* bytes, size_t size, WeightLayout layout, int layer, const std::string& name) {
  Config base = config_;
  base.rope_base = 0;  // the new file's own base, not the last file's
  *this = from_safetensors(base, bytes, size, layout, layer, name);  // assigned only once it has succeeded
}

Trace Model::run_text(const std::string& text, KernelPath path, const HeadGates& gates) const {
  Trace trace;
  run_text_into(trace, text, path, gates);
  return trace;
}

Trace Model::run_ids(const std::vector<int32_t>& ids, KernelPath path, const HeadGates& gates) const {
  Trace trace;
  run_ids_into(trace, ids, path, gates);
  return trace;
}

Trace Model::run_input(const Tensor& x, KernelPath path) const {
  Trace trace;
  run_input_into(trace, x, path);
  return trace;
}

void Model::run_text_into(Trace& trace, const std::string& text, KernelPath path, const HeadGates& gates) const {
  if (!tokenizer_) throw Error(ErrorCode::needs_tokenizer, "text", {{"model", preset_name(config_.preset)}});
  Tokenized tokenized = tokenizer_->tokenize(text);
  run_ids_into(trace, tokenized.ids, path, gates);
  trace.tokens = std::move(tokenized.tokens);
}

void Model::run_ids_into(Trace& trace, const std::vector<int32_t>& ids, KernelPath path, const HeadGates& gates,
                         KvCache* cache) const {
  ForwardOptions options{path, gates.empty() ? nullptr : &gates, weights_};
  options.cache = cache;
  run_with(trace, ids, options);
}

void Model::run_blocks_into(Trace& trace, const std::vector<int32_t>& ids) const {
  ForwardOptions options{KernelPath::simd, nullptr, weights_};
  options.head = false;
  run_with(trace, ids, options);
}

void Model::run_with(Trace& trace, const std::vector<int32_t>& ids, const ForwardOptions& options) const {
  const int T = static_cast<int>(ids.size());
  if (options.path == KernelPath::scalar)  // the oracle reads plain (out, in) matrices: unpacked for this run
    model_forward(trace, ids, 1, T, model_weights(), weights_->packed, config_, options);
  else
    model_forward(trace, ids, 1, T, weights_->rest, weights_->packed, config_, options);
  check_run_finite(trace, config_);
  trace.tokens.clear();
  for (int32_t id : ids) trace.tokens.push_back(std::to_string(id));  // run_text_into names them
}

void Model::run_input_into(Trace& trace, const Tensor& input, KernelPath path) const {
  run_input_into(trace, Tensor(input), path);
}

void Model::run_input_into(Trace& trace, Tensor&& input, KernelPath path) const {
  if (has_blocks(config_.preset))
    throw Error(std::string("a ") + preset_name(config_.preset) + " model starts from token ids, not an input x");
  Shape shape = input.shape;
  if (shape.size() == 2) shape.insert(shape.begin(), 1);  // (T, d) -> (1, T, d)
  if (shape_numel(shape) != input.data.size())
    throw Error("x has shape " + shape_to_string(shape) + " but " + std::to_string(input.data.size()) + " values");
  if (shape.size() != 3 || shape[0] != 1 || shape[2] != config_.d_model)
    throw Error("input x has shape " + shape_to_string(shape) + "; expected (1, T, " + std::to_string(config_.d_model) + ")");
  const int T = static_cast<int>(shape[1]);
  if (T < 1 || T > kMaxSeq)
    throw Error("sequence length must be between 1 and " + std::to_string(kMaxSeq) + ", got " + std::to_string(T));
  trace.restart(model_trace_size(config_));
  trace.tokens.clear();
  trace.ids.clear();
  Tensor& x = trace.slot(Stage::embed, "x", shape);
  x.data.swap(input.data);
  if (path == KernelPath::scalar)
    forward_from_x(trace, 1, T, model_weights(), weights_->packed, config_, {path, nullptr, weights_});
  else
    forward_from_x(trace, 1, T, weights_->rest, weights_->packed, config_, {path, nullptr, weights_});
  check_run_finite(trace, config_);
}

}  // namespace mha
