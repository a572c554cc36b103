#include "config.h"

#include <string>

#include "error.h"

namespace mha {

void validate_config(const Config& c) {
  using std::to_string;
  if (c.d_model < 1 || c.d_model > kMaxDModel)
    throw Error("d_model must be between 1 and " + to_string(kMaxDModel) + ", got " + to_string(c.d_model));
  if (c.heads < 1 || c.heads > kMaxHeads)
    throw Error("heads must be between 1 and " + to_string(kMaxHeads) + ", got " + to_string(c.heads));
  if (c.d_model % c.heads != 0)
    throw Error("d_model " + to_string(c.d_model) + " is not divisible by heads " + to_string(c.heads) +
                ": each head gets d_model / heads dimensions");
  if (c.kv_heads < 0 || c.kv_heads > c.heads)
    throw Error("kv_heads must be between 1 and heads (" + to_string(c.heads) + "), got " + to_string(c.kv_heads));
  if (c.heads % c.kv_heads_or_heads() != 0)
    throw Error("heads " + to_string(c.heads) + " is not divisible by kv_heads " + to_string(c.kv_heads) +
                ": each key/value head must serve the same number of query heads");
  if (c.vocab_size < 1) throw Error("vocab_size must be at least 1, got " + to_string(c.vocab_size));
}

}  // namespace mha
