// The KV cache: the keys and values a model of blocks has computed for the positions it has run,
// kept so that a new position's query reads them instead of the model recomputing them (incremental
// decoding, generate.h). The forward appends to it (ForwardOptions::cache).
//
// What it costs: 2 (K and V) × layers × kv_heads × d_head × bytes per value, per token. Grouped-query
// attention shares one K/V head among heads / kv_heads query heads, so its cache is that many times
// smaller than multi-head attention's (kv_heads = heads); multi-query attention keeps one (kv_heads = 1).
#pragma once

#include <cstdint>
#include <vector>

#include "base/config.h"
#include "base/tensor.h"

namespace mha {

// The formula above: the bytes of a cache of `tokens` positions.
int64_t kv_cache_bytes(int layers, int kv_heads, int d_head, int bytes_per_value, int64_t tokens);

class KvCache {
 public:
  // Room for `capacity` positions of this config's layers and K/V heads (float32 values).
  KvCache(const Config& config, int capacity);

  // Positions cached so far: the next run's tokens start at this position.
  int length() const { return length_; }
  int capacity() const { return capacity_; }
  int layers() const { return static_cast<int>(k_.size()); }
  int kv_heads() const { return kv_heads_; }
  int d_head() const { return d_head_; }
  // The bytes the cached positions take (float32): kv_cache_bytes(…, 4, length()).
  int64_t bytes() const;

  // Layer `layer`'s keys (or values) of K/V head g: position after position, row_stride() floats
  // apart, each position's row holding every K/V head side by side, as k and v are projected. A
  // decoding step reads the whole cache after its weights have pushed it out of the CPU's caches; read
  // row after row for all heads at once (kernels::attend_step_simd), one layer's keys and then its
  // values are each one run of memory. A GPT-2-small step's attention took 0.42 ms that way against
  // 0.75 ms with each head's positions in a run of their own read head by head (npm run profile --
  // decode), and these rows read head by head had taken 0.25 ms more than that.
  const float* keys(int layer, int g) const { return k_[static_cast<size_t>(layer)].data() + static_cast<size_t>(g) * d_head_; }
  const float* values(int layer, int g) const { return v_[static_cast<size_t>(layer)].data() + static_cast<size_t>(g) * d_head_; }
  int row_stride() const { return kv_heads_ * d_head_; }
  // (1, kv_heads, length, d_head): layer `layer`'s keys (or values) as the split heads show them.
  Tensor heads(int layer, bool values) const;

  // For the forward: room for `T` more positions (mha::Error naming the capacity if not), the new
  // positions' keys and values written after the cached ones (k and v as projected: T rows of
  // kv_heads·d_head), and the positions made final once every layer has written them.
  void check_room(int T) const;
  void write(int layer, const float* k, const float* v, int T);
  void advance(int T) { length_ += T; }
  // Forgets every position (the storage is kept).
  void clear() { length_ = 0; }

 private:
  std::vector<std::vector<float>> k_, v_;  // per layer: capacity × kv_heads × d_head
  int capacity_ = 0, kv_heads_ = 0, d_head_ = 0, length_ = 0;
};

// A published model's attention sizes, for the page's calculator of cache sizes at long contexts.
struct PublishedAttention {
  const char* id;    // "llama-3-8b"
  const char* name;  // "Llama 3 8B"
  int layers, heads, kv_heads, d_head;
  const char* repo;  // the Hugging Face repository whose config.json gives them (the page words the rest)
};
const std::vector<PublishedAttention>& published_attention_table();

}  // namespace mha
