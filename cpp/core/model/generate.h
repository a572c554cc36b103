// Generation: the one forward (forward.h) run over a prompt, then one new token at a time, each
// chosen by sampling.h from the last position's logits. With the KV cache (the default) the prompt
// runs once and every later step runs only its one new token, reading the cached keys and values
// of the earlier ones; without it (use_cache = false, the cache's check) every step runs the whole
// sequence again. Both give the same ids and, step by step, the same logits.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "model/kv_cache.h"
#include "model/model.h"
#include "model/sampling.h"

namespace mha {

struct GenerateOptions {
  int tokens = 8;  // new tokens, at least 1; the prompt plus them must fit the model's positions
  SamplingOptions sampling;
  bool use_cache = true;
  int top = 5;  // candidates each step lists (Draw::top)
  KernelPath path = KernelPath::simd;
};

class Generator {
 public:
  // Checks what it can before anything runs: a model with blocks, the sampling settings, and that
  // the prompt and the new tokens fit its positions (mha::Error generate_past_positions naming the
  // limit); the prompt's ids are checked by the first step's run, before it draws. `model` must
  // outlive the generator.
  Generator(const Model& model, std::vector<int32_t> prompt, const GenerateOptions& options, HeadGates gates = {});

  // Runs what the model has not seen yet (the prompt, then the last new id), draws the next id from
  // the last position's logits and appends it. mha::Error once `tokens` ids have been made.
  Draw step();
  bool done() const { return made_ == options_.tokens; }

  const std::vector<int32_t>& ids() const { return ids_; }  // the prompt, then every new id
  int prompt_length() const { return prompt_length_; }
  const KvCache* cache() const { return cache_.get(); }  // null without the cache
  // The last run: the prompt, or (with the cache) the one new token; its last row's logits drew the last id.
  const Trace& trace() const { return trace_; }

 private:
  const Model& model_;
  GenerateOptions options_;
  HeadGates gates_;
  std::vector<int32_t> ids_;
  int prompt_length_ = 0, made_ = 0;
  std::unique_ptr<KvCache> cache_;
  Trace trace_;
  Rng rng_;
  // false for a model with its own vocabulary (vocab_tokenizer.h): its <unk> is never drawn
  bool writes_unknown_ = true;
  std::vector<float> row_logits_, row_probs_;
};

// A whole generation: the ids (prompt + new) and each step's draw.
struct Generated {
  std::vector<int32_t> ids;
  int prompt_length = 0;
  std::vector<Draw> steps;
};
Generated generate(const Model& model, std::vector<int32_t> prompt, const GenerateOptions& options, HeadGates gates = {});

}  // namespace mha
