#include "model/run_checks.h"

#include <string>

#include "base/error.h"
#include "model/backward.h"
#include "model/kv_cache.h"

namespace mha {

using std::to_string;

void check_ids(const std::vector<int32_t>& ids, int B, int T, int past, int positions, const Config& c) {
  if (B < 1 || T < 1) throw Error("give at least one token");
  if (past + T > positions)
    throw Error(ErrorCode::too_many_positions, "text", {{"tokens", to_string(past + T)}, {"max", to_string(positions)}});
  if (ids.size() != static_cast<size_t>(B) * T)
    throw Error("internal: a batch of " + to_string(B) + " × " + to_string(T) + " needs that many ids, got " +
                to_string(ids.size()));
  for (size_t i = 0; i < ids.size(); ++i)
    if (ids[i] < 0 || ids[i] >= c.vocab_size)
      throw Error(ErrorCode::token_outside_vocabulary, "text",
                  {{"id", to_string(ids[i])}, {"position", to_string(i % T)}, {"vocab", to_string(c.vocab_size)}});
}

void check_forward(const Tensor& x, const ModelWeights& w, const Config& c, int B, int T, const ForwardOptions& o) {
  if (o.gates && (o.gates->size() > static_cast<size_t>(c.layers)))
    throw Error("internal: head gates for more layers than the model has");
  if (o.gates)
    for (const std::vector<float>& layer : *o.gates)
      if (!layer.empty() && layer.size() != static_cast<size_t>(c.heads))
        throw Error("internal: head gates for " + to_string(layer.size()) + " heads; the model has " + to_string(c.heads));
  if (o.path == KernelPath::scalar && w.blocks.at(0).attention.w_q.data.empty())
    throw Error("internal: the scalar path reads unpacked weights (unpack_model)");
  if (o.cache) {
    if (!has_blocks(c.preset) || B != 1) throw Error("internal: a KV cache goes with a model of blocks, batch 1");
    if (o.cache->layers() != c.layers || o.cache->kv_heads() != c.kv_heads_or_heads() || o.cache->d_head() != c.d_head())
      throw Error("internal: the KV cache was made for another model");
    if (o.cache->length() > 0 && T > 1) throw Error("internal: after its first run, a KV cache grows one position at a time");
    o.cache->check_room(T);
  }
  if (const ActivationPatch* p = o.patch) {
    const bool head = p->kind == ActivationPatch::Kind::head_z;
    if (!has_blocks(c.preset) || B != 1 || o.cache || !p->values || p->layer < 0 || p->layer >= c.layers ||
        (head && (p->head < 0 || p->head >= c.heads)) || (!head && (p->position < 0 || p->position >= T)))
      throw Error("internal: a patch names a head or a row the run does not have");
  }
  if (x.shape != Shape{B, T, c.d_model})
    throw Error("input x has shape " + shape_to_string(x.shape) + "; expected " + shape_to_string({B, T, c.d_model}));
}

int check_targets(const std::vector<int32_t>& targets, int rows, const Config& c) {
  if (targets.size() != static_cast<size_t>(rows))
    throw Error("internal: " + to_string(targets.size()) + " targets for " + to_string(rows) + " readout rows");
  for (int32_t t : targets)
    if (t >= c.vocab_size || t < -1) throw Error("target " + to_string(t) + " is outside the vocabulary");
  const int counted = counted_targets(targets);
  if (counted == 0) throw Error("the batch has no position with a target");
  return counted;
}

}  // namespace mha
