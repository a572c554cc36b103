#include "model.h"

#include <string>

#include "embedding.h"
#include "error.h"

namespace mha {

Model::Model(const Config& config) : config_(config) {
  validate_config(config_);
  weights_ = random_attention_weights(config_);
  prepared_ = prepare_weights(weights_);
  tokenizer_ = std::make_shared<CharWordTokenizer>(config_.vocab_size);
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
  Tokenized tokenized = tokenizer_->tokenize(text);
  const int T = static_cast<int>(tokenized.ids.size());

  Tensor token_embedding = token_embeddings(tokenized.ids, config_, token_table_);
  Tensor position_encoding =
      has_learned_positions() ? learned_positions(T, position_table_) : sinusoidal_positions(T, config_.d_model);
  Tensor x({1, T, config_.d_model});
  for (size_t i = 0; i < x.numel(); ++i) x.data[i] = token_embedding.data[i] + position_encoding.data[i];
  token_embedding.shape = {1, T, config_.d_model};
  position_encoding.shape = {1, T, config_.d_model};

  Trace trace;
  trace.tokens = std::move(tokenized.tokens);
  trace.ids = std::move(tokenized.ids);
  trace.add(Stage::embed, "token_embedding", std::move(token_embedding));
  trace.add(Stage::embed, "position_encoding", std::move(position_encoding));
  trace.add(Stage::embed, "x", x);
  attention_forward(trace, x, weights_, config_, path, &prepared_);
  return trace;
}

Trace Model::run_input(const Tensor& input, KernelPath path) const {
  Tensor x = input;
  if (x.shape.size() == 2) x.shape.insert(x.shape.begin(), 1);  // (T, d) -> (1, T, d)
  Trace trace;
  trace.add(Stage::embed, "x", x);
  attention_forward(trace, x, weights_, config_, path, &prepared_);
  return trace;
}

}  // namespace mha
