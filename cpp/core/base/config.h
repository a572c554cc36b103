// What a learner sets: the kind of model and its sizes.
#pragma once

#include <cstdint>

namespace mha {

// Limits keep the page responsive and the WASM heap bounded; the CLI and page print them in errors.
constexpr int kMaxDModel = 4096;
constexpr int kMaxHeads = 256;
constexpr int kMaxSeq = 4096;         // tokens in one pass, text or input
constexpr int kMaxTextBytes = 4096;   // UTF-8 bytes of text given to the tokenizer
constexpr int kMaxTextTokens = 512;   // tokens the tokenizer may produce
constexpr int kMaxLayers = 48;
constexpr int kMaxVocab = 1 << 20;    // rows of a token table (GPT-2: 50,257)
constexpr double kDefaultRopeBase = 10000.0;  // Llama's rope_theta when a file does not say
constexpr float kLayerNormEps = 1e-5f;         // GPT-2's

// One description, three kinds of model:
enum class Preset {
  single,     // one attention layer on embedded text, no residual: the shapes lesson
  attn_only,  // blocks of attention with residuals, learned positions, untied unembedding
  gpt2,       // pre-LN blocks: LayerNorm, attention, residual, LayerNorm, GELU MLP, residual; final
              // LayerNorm; unembedding tied to the token table
};
Preset parse_preset(const char* name);  // "single" | "attn-only" | "gpt2", else mha::Error
const char* preset_name(Preset preset);
inline bool has_blocks(Preset p) { return p != Preset::single; }  // residuals, learned tables, logits
inline bool has_layer_norm(Preset p) { return p == Preset::gpt2; }
inline bool has_mlp(Preset p) { return p == Preset::gpt2; }
inline bool ties_unembedding(Preset p) { return p == Preset::gpt2; }  // the unembedding is wte

struct Config {
  Preset preset = Preset::single;
  int layers = 1;         // [1, 48]; a single layer is 1
  int d_model = 512;      // [1, 4096], divisible by heads
  int heads = 8;          // [1, 256]
  int kv_heads = 0;       // 0 = heads (ordinary MHA); 1 = multi-query; else grouped-query, divides heads
  bool causal = false;    // mask future positions (decoder self-attention)
  uint64_t seed = 1;      // random weights and embeddings
  int vocab_size = 8000;  // ids are in [0, vocab_size)
  int max_positions = 1024;  // rows of the learned position table (models with blocks)
  // Rotary position embeddings (rope.h): 0 = none; > 0 = their base θ. Not a free setting: it comes
  // with llama-layout weights (Model::from_safetensors), so a single layer only; d_head must be even.
  double rope_base = 0;

  int d_head() const { return d_model / heads; }
  int kv_heads_or_heads() const { return kv_heads == 0 ? heads : kv_heads; }
  int kv_dim() const { return kv_heads_or_heads() * d_head(); }
};

// Throws mha::Error with a one-line reason when the sizes do not fit together.
void validate_config(const Config& config);

class Error;
// The error for a head to switch off (layer.head) that the config has not (field "switched_off").
Error no_such_head(long long layer, long long head, const Config& config);

}  // namespace mha
