// What a learner sets: the sizes of one multi-head attention layer.
#pragma once

#include <cstdint>

namespace mha {

// Limits keep the page responsive and the WASM heap bounded; the CLI and page print them in errors.
constexpr int kMaxDModel = 4096;
constexpr int kMaxHeads = 256;
constexpr int kMaxSeq = 4096;         // tokens in one pass, text or input
constexpr int kMaxTextBytes = 4096;   // UTF-8 bytes of text given to the tokenizer
constexpr int kMaxTextTokens = 512;   // tokens the tokenizer may produce

struct Config {
  int d_model = 512;      // [1, 4096], divisible by heads
  int heads = 8;          // [1, 256]
  int kv_heads = 0;       // 0 = heads (ordinary MHA); 1 = multi-query; else grouped-query, divides heads
  bool causal = false;    // mask future positions (decoder self-attention)
  uint64_t seed = 1;      // random weights and embeddings
  int vocab_size = 8000;  // ids are in [0, vocab_size)

  int d_head() const { return d_model / heads; }
  int kv_heads_or_heads() const { return kv_heads == 0 ? heads : kv_heads; }
  int kv_dim() const { return kv_heads_or_heads() * d_head(); }
};

// Throws mha::Error with a one-line reason when the sizes do not fit together.
void validate_config(const Config& config);

}  // namespace mha
