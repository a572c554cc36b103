#include "model/kv_cache.h"

#include <algorithm>
#include <string>

#include "base/error.h"
#include "kernels/heads.h"

namespace mha {

int64_t kv_cache_bytes(int layers, int kv_heads, int d_head, int bytes_per_value, int64_t tokens) {
  return 2 * static_cast<int64_t>(layers) * kv_heads * d_head * bytes_per_value * tokens;
}

KvCache::KvCache(const Config& c, int capacity) : capacity_(capacity), kv_heads_(c.kv_heads_or_heads()), d_head_(c.d_head()) {
  validate_config(c);
  if (capacity < 1) throw Error("internal: a KV cache needs room for at least one position");
  const size_t size = static_cast<size_t>(capacity) * c.kv_dim();
  k_.assign(static_cast<size_t>(c.layers), std::vector<float>(size));
  v_.assign(static_cast<size_t>(c.layers), std::vector<float>(size));
}

int64_t KvCache::bytes() const { return kv_cache_bytes(layers(), kv_heads_, d_head_, sizeof(float), length_); }

Tensor KvCache::heads(int layer, bool values) const {
  Tensor out({1, kv_heads_, length_, d_head_});  // the rows are k and v as projected: split them as the trace does
  split_heads(out.ptr(), values ? this->values(layer, 0) : keys(layer, 0), 1, length_, kv_heads_, d_head_);
  return out;
}

void KvCache::check_room(int T) const {
  if (length_ + T > capacity_)
    throw Error("internal: the KV cache holds " + std::to_string(capacity_) + " positions; " + std::to_string(length_) +
                " are cached and " + std::to_string(T) + " more were run");
}

void KvCache::write(int layer, const float* k, const float* v, int T) {
  check_room(T);
  const size_t at = static_cast<size_t>(length_) * row_stride(), count = static_cast<size_t>(T) * row_stride();
  std::copy_n(k, count, k_[static_cast<size_t>(layer)].data() + at);
  std::copy_n(v, count, v_[static_cast<size_t>(layer)].data() + at);
}

const std::vector<PublishedAttention>& published_attention_table() {
  // From each model's config.json on Hugging Face (num_hidden_layers, num_attention_heads,
  // num_key_value_heads; d_head = hidden_size / num_attention_heads) and GPT-2's paper.
  static const std::vector<PublishedAttention> table = {
      {"gpt2", "GPT-2 small", 12, 12, 12, 64, "openai-community/gpt2"},
      {"llama-3-8b", "Llama 3 8B", 32, 32, 8, 128, "meta-llama/Meta-Llama-3-8B"},
      {"llama-3-70b", "Llama 3 70B", 80, 64, 8, 128, "meta-llama/Meta-Llama-3-70B"},
      {"mistral-7b", "Mistral 7B", 32, 32, 8, 128, "mistralai/Mistral-7B-v0.1"},
  };
  return table;
}

}  // namespace mha
