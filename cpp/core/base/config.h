// What a learner sets: the kind of model and its sizes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace mha {

// Limits keep the page responsive and the WASM heap bounded; the CLI and page print them in errors.
constexpr int kMaxDModel = 4096;
constexpr int kMaxHeads = 256;
constexpr int kMaxSeq = 4096;         // tokens in one pass, text or input
constexpr int kMaxTextBytes = 4096;   // UTF-8 bytes of text given to the tokenizer
constexpr int kMaxTextTokens = 512;   // tokens the tokenizer may produce
constexpr int kMaxLayers = 48;
constexpr int kMaxVocab = 1 << 20;    // rows of a token table (GPT-2: 50,257)
constexpr uint64_t kMaxFileBytes = 4ull << 30;         // a file read whole (GPT-2 large in float32: 3.1 GB)
constexpr uint64_t kMaxStreamBytes = 256 << 20;        // a pipe or device, whose size is not known before
constexpr uint64_t kMaxTokenizerFileBytes = 64 << 20;  // encoder.json, vocab.bpe, tokenizer.json (GPT-2's: 1 MB)
constexpr int kMaxBatch = 4096;                        // sequences in one training step
constexpr int kMaxTrainingSteps = 10000000;            // a training recipe's steps
constexpr int kMaxTrainingMegabytes = 1024;   // what a training run may need: weights, Adam's moments, activations
constexpr int kMaxReadouts = 16;      // tokens a model predicts at each position (the recall task's K)
constexpr double kDefaultRopeBase = 10000.0;  // Llama's rope_theta when a file does not say
constexpr float kLayerNormEps = 1e-5f;         // GPT-2's
constexpr int kGpt2DHead = 64;  // every GPT-2 size: d_model / heads (a checkpoint that does not say its heads)

// Whether a table indexed by an enum (kPresets, kLayouts) lists its rows in the enum's order, `key`
// naming each row's value: the lookups index it, so a row out of place would answer for another.
template <typename Row, typename Enum, size_t N>
constexpr bool in_enum_order(const Row (&rows)[N], Enum Row::*key) {
  for (size_t i = 0; i < N; ++i)
    if (static_cast<size_t>(rows[i].*key) != i) return false;
  return true;
}

// One description, three kinds of model, each a row of kPresets below (in the enum's order).
enum class Preset { single, attn_only, gpt2 };

struct PresetSpec {
  Preset preset;
  const char* name;       // as the CLI, the module and model files say it
  bool blocks;            // residual blocks, learned tables, logits over a vocabulary
  bool layer_norm;        // LayerNorm before attention (and the MLP), and a final one
  bool mlp;               // a GELU MLP after attention in each block
  bool tied_unembedding;  // the unembedding is the token table
};
inline constexpr PresetSpec kPresets[] = {
    // one attention layer on embedded text, no residual: the shapes lesson
    {Preset::single, "single", false, false, false, false},
    // blocks of attention with residuals, learned positions, untied unembedding
    {Preset::attn_only, "attn-only", true, false, false, false},
    // pre-LN blocks: LayerNorm, attention, residual, LayerNorm, GELU MLP, residual; final LayerNorm;
    // unembedding tied to the token table
    {Preset::gpt2, "gpt2", true, true, true, true},
};
static_assert(in_enum_order(kPresets, &PresetSpec::preset), "kPresets must have one row per Preset, in the enum's order");
constexpr const PresetSpec& preset_spec(Preset p) { return kPresets[static_cast<int>(p)]; }
Preset parse_preset(const char* name);  // a row's name, else mha::Error
const char* preset_name(Preset preset);
std::vector<std::string> preset_names(bool blocks_only = false);  // the rows' names, in order (the CLI's choices)
constexpr bool has_blocks(Preset p) { return preset_spec(p).blocks; }
constexpr bool has_layer_norm(Preset p) { return preset_spec(p).layer_norm; }
constexpr bool has_mlp(Preset p) { return preset_spec(p).mlp; }
constexpr bool ties_unembedding(Preset p) { return preset_spec(p).tied_unembedding; }

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
  // [1, 16] tokens predicted at each position, each its own softmax over the vocabulary: 1 = the next
  // token; K > 1 = the recall task's K tokens before it (readout k − 1 predicts the id at i − k).
  // Models with an untied unembedding only (attn-only): the unembedding has K·vocab rows.
  int readouts = 1;

  int d_head() const { return d_model / heads; }
  int kv_heads_or_heads() const { return kv_heads == 0 ? heads : kv_heads; }
  int kv_dim() const { return kv_heads_or_heads() * d_head(); }
};

// Throws mha::Error with a one-line reason when the sizes do not fit together.
void validate_config(const Config& config);

class Error;
// The error for a head (layer.head) the config has not: one to switch off (field "switched_off") or
// to show (field "head").
Error no_such_head(long long layer, long long head, const Config& config, const char* field = "switched_off");

}  // namespace mha
