// One attention layer a learner can run: its config, its weights, its tokenizer and embeddings.
// Every stage of a run lands in the returned trace.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "attention.h"
#include "layouts.h"
#include "tokenizer.h"

namespace mha {

class Model {
 public:
  // Random weights and embeddings from config.seed. Throws mha::Error for a bad config.
  explicit Model(const Config& config);

  // A layer read from safetensors bytes. d_model (and kv_heads, when `base` leaves it 0) come from
  // the file; heads, causal, seed from `base`. A token/position table in the file is used for text.
  static Model from_safetensors(const Config& base, const uint8_t* bytes, size_t size, WeightLayout layout, int layer);

  // Takes a new config; throws mha::Error for a bad one and leaves the model unchanged. Seeded
  // weights are kept when they would be drawn the same (same d_model, key/value width and seed:
  // a causal toggle, or heads 8 -> 4 with kv_heads following), so such a change costs one run
  // instead of a million draws. Otherwise, and always after load_weights, new seeded weights.
  void configure(const Config& config);

  // Replaces the weights as from_safetensors does, keeping heads and kv_heads. On error the model is unchanged.
  void load_weights(const uint8_t* bytes, size_t size, WeightLayout layout, int layer);

  // tokenize -> embed -> the five attention stages. Throws mha::Error for bad text.
  Trace run_text(const std::string& text, KernelPath path = KernelPath::simd) const;
  // From an embedded input x of shape (T, d_model) or (1, T, d_model).
  Trace run_input(const Tensor& x, KernelPath path = KernelPath::simd) const;

  // The same, refilling `trace` in place: a second run of the same sizes allocates nothing.
  // On an error the trace's contents are unspecified.
  void run_text_into(Trace& trace, const std::string& text, KernelPath path = KernelPath::simd) const;
  void run_input_into(Trace& trace, const Tensor& x, KernelPath path = KernelPath::simd) const;

  const Config& config() const { return config_; }
  const AttentionWeights& weights() const { return weights_; }
  bool has_learned_positions() const { return !position_table_.data.empty(); }

 private:
  Model(const Config& config, LoadedWeights&& loaded);

  Config config_;
  AttentionWeights weights_;
  Tensor token_table_;     // empty: rows drawn from the seed
  Tensor position_table_;  // empty: sinusoidal
  PreparedWeights prepared_;  // weights_ packed for the SIMD kernels
  bool seeded_ = false;       // weights_ were drawn from config_.seed (not loaded)
  std::shared_ptr<const Tokenizer> tokenizer_;
};

}  // namespace mha
