// A model a learner can run: one attention layer (the shapes lesson) or a small transformer of
// blocks (config.h's Preset), with its weights, tokenizer and embeddings. Every stage of a run lands
// in the returned trace, under the names of stages.h.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "io/layouts.h"
#include "model/forward.h"
#include "model/parameters.h"
#include "text/tokenizer.h"

namespace mha {

struct LoadedModel;      // model_builder.h
struct ModelConfigFile;  // config_json.h

// What a model is, as a reader is told it: the page says only what is true of the model shown
// (its tokenize, embed, attend and predict texts), whichever menu item made it.
struct ModelFacts {
  bool loaded = false;     // weights read from a file or trained, not drawn from the seed
  std::string layout;      // the file's: "gpt2", "attn-only", "pytorch", "llama"; "" when drawn from the seed
  std::string task;        // "induction", "recall" or "corpus": the task its file says it was trained on; else ""
  std::string tokenizer;   // "hashed" (CharWordTokenizer), "first-appearance", "bpe", "chars" or "words" (its
                           // own vocabulary, vocab_tokenizer.h); "" = none: it reads ids
  std::string token_table; // "scaled" (seeded Xavier rows × √d_model, a single layer's) or "table" (a table's rows)
  std::string positions;   // "sinusoidal" or "table" (a learned or seeded position table)
  bool biases = true;      // the attention adds b_Q, b_K, b_V, b_O (Llama's has none)
  std::string heads_from;  // model_builder.h's heads_source_name: "given", "config.json", "metadata", "gpt2-d-head"
};

constexpr float kRandomModelInitStd = 0.02f;  // GPT-2's, for random models with blocks

class Model {
 public:
  // Random weights from config.seed. Throws mha::Error for a bad config.
  explicit Model(const Config& config);

  // One attention layer read from safetensors bytes. d_model (and kv_heads, when `base` leaves it 0)
  // come from the file; heads, causal, seed from `base`. Llama weights bring RoPE: base.rope_base when
  // > 0 (an error for other layouts), else the file's rope_theta, else kDefaultRopeBase. A token/position table in the
  // file is used for text. `name`: the file's, for messages.
  static Model from_safetensors(const Config& base, const uint8_t* bytes, size_t size, WeightLayout layout, int layer,
                                const std::string& name = kUnnamedFile);
  // A whole model (layout gpt2 or attn_only); heads from `heads` or, when 0, from config.json
  // (`config`), the file's __metadata__, or d_model / 64 for gpt2 (model_builder.h). `name`: the file's.
  static Model from_model_file(const uint8_t* bytes, size_t size, WeightLayout layout, int heads,
                               const std::string& name = kUnnamedFile, const ModelConfigFile* config = nullptr);
  // A model from weights in hand (a trainer's).
  static Model from_weights(const Config& config, ModelWeights weights);
  // A model read from a file (read_model, ModelBuilder): its weights, and its tokenizer when the file names one.
  static Model from_loaded(LoadedModel loaded);

  // Takes a new config; throws mha::Error for a bad one and leaves the model unchanged. Seeded
  // weights are kept when they would be drawn the same (same d_model, key/value width and seed:
  // a causal toggle, or heads 8 -> 4 with kv_heads following); otherwise new seeded weights are drawn.
  // Loaded or trained weights are kept: a setting their shapes allow applies (heads, causal for a
  // single layer), and one they do not allow is an error naming it, never a silent swap to random.
  void configure(const Config& config);

  // Replaces the weights as from_safetensors does, keeping heads and kv_heads. On error the model is unchanged.
  void load_weights(const uint8_t* bytes, size_t size, WeightLayout layout, int layer,
                    const std::string& name = kUnnamedFile);

  // The tokenizer --text goes through. Models with blocks start with: attn-only, first-appearance ids
  // (tokenizer.h); gpt2, none (give one, e.g. bpe_files.h's, or run ids). A tokenizer with more ids
  // than the model's vocabulary is an mha::Error (field "tokenizer"), and the model keeps its own.
  void set_tokenizer(std::shared_ptr<const Tokenizer> tokenizer);
  bool has_tokenizer() const { return tokenizer_ != nullptr; }
  const Tokenizer* tokenizer() const { return tokenizer_.get(); }
  // The same, shared: a trace's reader (the module's Trace handle) keeps the tokenizer of its run.
  const std::shared_ptr<const Tokenizer>& shared_tokenizer() const { return tokenizer_; }

  // tokenize -> embed -> every stage. Throws mha::Error for bad text. gates: forward.h's, on each head's output.
  Trace run_text(const std::string& text, KernelPath path = KernelPath::simd, const HeadGates& gates = {}) const;
  // Token ids, taken as given (models with blocks; a single layer embeds them with its own table).
  Trace run_ids(const std::vector<int32_t>& ids, KernelPath path = KernelPath::simd, const HeadGates& gates = {}) const;
  // From an embedded input x of shape (T, d_model) or (1, T, d_model): a single layer only.
  Trace run_input(const Tensor& x, KernelPath path = KernelPath::simd) const;

  // The same, refilling `trace` in place: a second run of the same sizes allocates nothing.
  // On an error the trace's contents are unspecified.
  void run_text_into(Trace& trace, const std::string& text, KernelPath path = KernelPath::simd,
                     const HeadGates& gates = {}) const;
  // With a cache: the ids are the positions after its cached ones, whose keys and values they read
  // and to which they add theirs (forward.h: incremental decoding, as generate.h drives it).
  void run_ids_into(Trace& trace, const std::vector<int32_t>& ids, KernelPath path = KernelPath::simd,
                    const HeadGates& gates = {}, KvCache* cache = nullptr) const;
  // The blocks only (models with blocks): no ln_f, logits or probs, for what reads nothing after the
  // last block (analyse_heldout).
  void run_blocks_into(Trace& trace, const std::vector<int32_t>& ids) const;
  void run_input_into(Trace& trace, const Tensor& x, KernelPath path = KernelPath::simd) const;
  // The same taking x's values over rather than copying them (x is left with the trace's old ones).
  void run_input_into(Trace& trace, Tensor&& x, KernelPath path = KernelPath::simd) const;

  const Config& config() const { return config_; }
  // A single layer's weights and every parameter, unpacked on each call from the model's only copy
  // of each matrix (its packing): copies, for files, the module's accessors and tests.
  AttentionWeights weights() const { return model_weights().blocks.at(0).attention; }
  ModelWeights model_weights() const { return unpack_model(*weights_, config_); }
  // The weights as the model holds them: each matrix once, packed for the SIMD kernels.
  const PackedModel& packed_weights() const { return *weights_; }
  // The same, shared: never changed once made (new weights are a new object), so a trace keeps the
  // weights of its run (Trace::weights) after the model has moved on to others or is gone.
  const std::shared_ptr<const PackedModel>& shared_weights() const { return weights_; }
  bool has_learned_positions() const { return !weights_->rest.position_table.data.empty(); }
  bool is_seeded() const { return seeded_; }
  ModelFacts facts() const;

 private:
  Model() = default;
  void run_with(Trace& trace, const std::vector<int32_t>& ids, const ForwardOptions& options) const;
  Config config_;
  std::shared_ptr<const PackedModel> weights_;  // a single layer: block 0's attention, with optional wte/wpe tables
  bool seeded_ = false;       // weights_ were drawn from config_.seed (not loaded or trained)
  ModelFacts source_;         // what facts() cannot read off the weights: layout, task, biases, heads_from
  std::shared_ptr<const Tokenizer> tokenizer_;
};

}  // namespace mha
