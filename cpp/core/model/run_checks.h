// What a run checks of what it is given, before any work (the forward's ids and options, the
// backward's targets): apart from forward.cpp and backward.cpp so that their messages (cold code:
// they throw) are compiled for size in WebAssembly with the rest of model/, while the passes
// themselves are compiled for speed (CMakeLists.txt).
#pragma once

#include <cstdint>
#include <vector>

#include "base/config.h"
#include "model/forward.h"

namespace mha {

// The ids a model may run, checked once for every use: one batch of B·T ids, each in the vocabulary,
// after `past` cached positions of a model with `positions`.
void check_ids(const std::vector<int32_t>& ids, int B, int T, int past, int positions, const Config& c);

// The options against the model: gates for its layers and heads, unpacked weights for the scalar
// path, a KV cache made for it with room for T more positions; and x shaped (B, T, d_model).
void check_forward(const Tensor& x, const ModelWeights& w, const Config& c, int B, int T, const ForwardOptions& o);

// The targets of `rows` readout rows: one each, each an id of the vocabulary or −1 (no target), at
// least one of them an id. Returns how many are ids (counted_targets).
int check_targets(const std::vector<int32_t>& targets, int rows, const Config& c);

}  // namespace mha
