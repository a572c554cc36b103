#include "model/weights.h"

#include <cmath>

#include "base/error.h"
#include "base/random.h"

namespace mha {

namespace {

// Stream ids for derive_seed: fixed forever, so a seed keeps drawing the same weights.
enum SeedStream : uint64_t { kStreamQ = 1, kStreamK = 2, kStreamV = 3, kStreamO = 4 };

Tensor xavier_matrix(int rows, int cols, uint64_t seed) {
  Rng rng(seed);
  const float bound = xavier_bound(cols, rows);
  Tensor t({rows, cols});
  rng.fill_uniform(t.ptr(), t.data.size(), -bound, bound);
  return t;
}

void check_shape(const Tensor& t, const Shape& expected, const std::string& name) {
  if (t.shape != expected)
    throw Error("weight " + name + " has shape " + shape_to_string(t.shape) + "; expected " + shape_to_string(expected));
  check_finite(t, "weight " + name);
}

}  // namespace

std::vector<std::pair<const char*, const Tensor*>> named_weights(const AttentionWeights& w) {
  return {{"w_q", &w.w_q}, {"b_q", &w.b_q}, {"w_k", &w.w_k}, {"b_k", &w.b_k},
          {"w_v", &w.w_v}, {"b_v", &w.b_v}, {"w_o", &w.w_o}, {"b_o", &w.b_o}};
}

float xavier_bound(int fan_in, int fan_out) {
  return static_cast<float>(std::sqrt(6.0 / static_cast<double>(fan_in + fan_out)));
}

AttentionWeights random_attention_weights(const Config& c) {
  validate_config(c);
  const int d = c.d_model, kv = c.kv_dim();
  AttentionWeights w;
  w.w_q = xavier_matrix(d, d, derive_seed(c.seed, kStreamQ));
  w.w_k = xavier_matrix(kv, d, derive_seed(c.seed, kStreamK));
  w.w_v = xavier_matrix(kv, d, derive_seed(c.seed, kStreamV));
  w.w_o = xavier_matrix(d, d, derive_seed(c.seed, kStreamO));
  w.b_q = Tensor({d});
  w.b_k = Tensor({kv});
  w.b_v = Tensor({kv});
  w.b_o = Tensor({d});
  return w;
}

void check_attention_weights(const AttentionWeights& w, const Config& c) {
  const int64_t d = c.d_model, kv = c.kv_dim();
  check_shape(w.w_q, {d, d}, "W_Q");
  check_shape(w.b_q, {d}, "b_Q");
  check_shape(w.w_k, {kv, d}, "W_K");
  check_shape(w.b_k, {kv}, "b_K");
  check_shape(w.w_v, {kv, d}, "W_V");
  check_shape(w.b_v, {kv}, "b_V");
  check_shape(w.w_o, {d, d}, "W_O");
  check_shape(w.b_o, {d}, "b_O");
}

}  // namespace mha
