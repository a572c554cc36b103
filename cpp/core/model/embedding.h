// ids -> vectors: a token table row per id plus a position vector per place in the sentence.
#pragma once

#include <cstdint>
#include <vector>

#include "base/config.h"
#include "base/tensor.h"

namespace mha {

// (T, d_model). With a loaded table (GPT-2's wte), its rows. Without one, a seeded Xavier/Glorot
// uniform row per id, scaled by √d_model as in "Attention Is All You Need" §3.4 so that tokens are
// not drowned by the positional encoding. Rows are drawn per id on demand: the vocabulary can be
// large without a table in memory.
Tensor token_embeddings(const std::vector<int32_t>& ids, const Config& config, const Tensor& token_table);

// (T, d_model). PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(pos / 10000^(2i/d)).
// Computed in double and rounded once, so every platform's libm gives the same floats.
Tensor sinusoidal_positions(int T, int d_model);

// (T, d_model): the first T rows of a learned table (GPT-2's wpe); mha::Error if T is longer.
Tensor learned_positions(int T, const Tensor& position_table);

}  // namespace mha
