#include "model.h"

#include <algorithm>
#include <string>

#include "embedding.h"
#include "error.h"

namespace mha {

Model::Model(const Config& config) : config_(config) {
  validate_config(config_);
  weights_ = random_attention_weights(config_);
  prepared_ = prepare_weights(weights_);
  tokenizer_ = std::make_shared<CharWordTokenizer>(config_.vocab_size);
  seeded_ = true;
}

void Model::configure(const Config& config) {
  validate_config(config);
  const bool same_weights = seeded_ && config.d_model == config_.d_model && config.kv_dim() == config_.kv_dim() &&
                            config.seed == config_.seed;
  if (!same_weights) {
    *this = Model(config);
    return;
  }
  if (config.vocab_size != config_.vocab_size) tokenizer_ = std::make_shared<CharWordTokenizer>(config.vocab_size);
  config_ = config;
}

Model::Model(const Config& config, LoadedWeights&& loaded)
    : config_(config),
      weights_(std::move(loaded.attention)),
      token_table_(std::move(loaded.token_table)),
      position_table_(std::move(loaded.position_table)),
      prepared_(prepare_weights(weights_)) {
  tokenizer_ = std::make_shared<CharWordTokenizer>(config_.vocab_size);
}

Model Model::from_safetensors(const Config& base, const uint8_t* bytes, size_t size, WeightLayout layout, int layer) {
  const SafetensorsFile file(bytes, size);
  LoadedWeights loaded = load_weights_layer(file, layout, layer, base.heads, base.kv_heads);
  Config config = base;
  config.d_model = loaded.d_model;
  config.kv_heads = loaded.kv_heads;
  if (!loaded.token_table.data.empty()) config.vocab_size = static_cast<int>(loaded.token_table.shape[0]);
  validate_config(config);
  return Model(config, std::move(loaded));
}

void Model::load_weights(const uint8_t* bytes, size_t size, WeightLayout layout, int layer) {
  *this = from_safetensors(config_, bytes, size, layout, layer);  // assigned only once it has succeeded
}

Trace Model::run_text(const std::string& text, KernelPath path) const {
  Trace trace;
  run_text_into(trace, text, path);
  return trace;
}

Trace Model::run_input(const Tensor& x, KernelPath path) const {
  Trace trace;
  run_input_into(trace, x, path);
  return trace;
}

void Model::run_text_into(Trace& trace, const std::string& text, KernelPath path) const {
  Tokenized tokenized = tokenizer_->tokenize(text);
  const int T = static_cast<int>(tokenized.ids.size()), d = config_.d_model;
  const Tensor tokens = token_embeddings(tokenized.ids, config_, token_table_);
  const Tensor positions = has_learned_positions() ? learned_positions(T, position_table_) : sinusoidal_positions(T, d);

  trace.restart();
  trace.tokens = std::move(tokenized.tokens);
  trace.ids = std::move(tokenized.ids);
  Tensor& token_embedding = trace.slot(Stage::embed, "token_embedding", {1, T, d});
  Tensor& position_encoding = trace.slot(Stage::embed, "position_encoding", {1, T, d});
  Tensor& x = trace.slot(Stage::embed, "x", {1, T, d});
  token_embedding.data = tokens.data;
  position_encoding.data = positions.data;
  for (size_t i = 0; i < x.numel(); ++i) x.data[i] = tokens.data[i] + positions.data[i];
  attention_forward(trace, x, weights_, config_, path, &prepared_);
}

void Model::run_input_into(Trace& trace, const Tensor& input, KernelPath path) const {
  Shape shape = input.shape;
  if (shape.size() == 2) shape.insert(shape.begin(), 1);  // (T, d) -> (1, T, d)
  trace.restart();
  Tensor& x = trace.slot(Stage::embed, "x", shape);
  std::copy(input.data.begin(), input.data.end(), x.data.begin());
  attention_forward(trace, x, weights_, config_, path, &prepared_);
}

}  // namespace mha
