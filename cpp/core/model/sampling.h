// How the next token is chosen from one row of the model's logits: greedy (its likeliest id) or
// drawn at random from the softmax at a temperature, cut to the top-k likeliest ids and then to the
// top-p nucleus (Holtzman et al., 2019), in that order, as Hugging Face's generate() applies them.
#pragma once

#include <cstdint>
#include <vector>

#include "base/random.h"

namespace mha {

constexpr float kMaxTemperature = 10.0f;

struct SamplingOptions {
  float temperature = 0.0f;  // [0, kMaxTemperature]. 0: greedy; else softmax(logits / temperature)
  int top_k = 0;             // [0, vocab]. 0: no cut; else only the k likeliest ids
  float top_p = 1.0f;        // (0, 1]. 1: no cut; else the fewest likeliest ids whose probabilities reach top_p
  uint64_t seed = 1;         // the draws' generator (random.h): the same draws natively and in WebAssembly
};

// mha::Error (code out_of_range, field temperature, top_k or top_p) for a setting outside its range.
void check_sampling(const SamplingOptions& options, int vocab);
// The same for any setting: field's value in [min, max], else out_of_range naming them.
void check_range(const char* field, double value, double min, double max);

struct Candidate {
  int32_t id;
  float p;
};

// One step's choice and the distribution it came from.
struct Draw {
  int32_t id = 0;
  float p = 0;           // id's probability in the distribution it was drawn from
  bool sampled = false;  // false: greedy, the likeliest id of the model's own softmax (temperature 1)
  int kept = 0;          // the ids that distribution gives any probability: the vocabulary unless top-k or top-p cut it
  // The likeliest ids, best first (by logit, ties to the lower id), with their probability in that
  // distribution (0 for an id top-k or top-p cut) and before the cut (softmax(logits / temperature)).
  std::vector<Candidate> top;
  std::vector<float> before;
};

// logits, probs: one row of V; probs is the model's softmax of it (the trace's probs), read for
// greedy steps and temperature 1. A sampled step takes one uniform01() of rng; a greedy one none.
// top_count: how many candidates `top` lists.
Draw draw_next(const float* logits, const float* probs, int V, const SamplingOptions& options, Rng& rng, int top_count);

}  // namespace mha
