#include "attention.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "error.h"

namespace mha {

namespace {

using LinearFn = void (*)(float*, const float*, const float*, const float*, int, int, int);
using ScoresFn = void (*)(float*, const float*, const float*, int, int, float, bool);
using SoftmaxFn = void (*)(float*, const float*, int, bool);
using WeightedSumFn = void (*)(float*, const float*, const float*, int, int, bool);

struct KernelSet {
  LinearFn linear;
  ScoresFn scores;
  SoftmaxFn softmax;
  WeightedSumFn weighted_sum;
};

KernelSet kernel_set(KernelPath path) {
  using namespace kernels;
  if (path == KernelPath::scalar)
    return {linear_forward_scalar, scores_forward_scalar, softmax_forward_scalar, weighted_sum_forward_scalar};
  return {linear_forward_simd, scores_forward_simd, softmax_forward_simd, weighted_sum_forward_simd};
}

Tensor linear(const KernelSet& ks, const Tensor& x, const Tensor& w, const Tensor& b, int T) {
  const int K = static_cast<int>(w.shape[1]), N = static_cast<int>(w.shape[0]);
  Tensor out({1, T, N});
  ks.linear(out.ptr(), x.ptr(), w.ptr(), b.ptr(), T, K, N);
  return out;
}

// (1, T, n_heads·D) -> (1, n_heads, T, D): head h takes columns h·D … (h+1)·D-1 of every row.
// The heads split d_model, they do not copy it.
Tensor split_heads(const Tensor& m, int T, int n_heads, int D) {
  Tensor out({1, n_heads, T, D});
  for (int h = 0; h < n_heads; ++h)
    for (int t = 0; t < T; ++t)
      std::copy_n(m.ptr() + (t * n_heads + h) * D, D, out.ptr() + (h * T + t) * D);
  return out;
}

// (1, n_heads, T, D) -> (1, T, n_heads·D): the inverse of split_heads.
Tensor concat_heads(const Tensor& heads, int T, int n_heads, int D) {
  Tensor out({1, T, n_heads * D});
  for (int h = 0; h < n_heads; ++h)
    for (int t = 0; t < T; ++t)
      std::copy_n(heads.ptr() + (h * T + t) * D, D, out.ptr() + (t * n_heads + h) * D);
  return out;
}

// (1, T, a + b + c) -> three (1, T, ·) tensors: the fused projection's columns back into Q, K, V.
void split_columns(const std::vector<float>& fused, int T, Tensor& q, Tensor& k, Tensor& v) {
  const int dq = static_cast<int>(q.shape[2]), dk = static_cast<int>(k.shape[2]), width = dq + 2 * dk;
  for (int t = 0; t < T; ++t) {
    const float* row = fused.data() + static_cast<size_t>(t) * width;
    std::copy_n(row, dq, q.ptr() + t * dq);
    std::copy_n(row + dq, dk, k.ptr() + t * dk);
    std::copy_n(row + dq + dk, dk, v.ptr() + t * dk);
  }
}

}  // namespace

PreparedWeights prepare_weights(const AttentionWeights& w) {
  const int d = static_cast<int>(w.w_q.shape[1]);
  const int rows = static_cast<int>(w.w_q.shape[0] + w.w_k.shape[0] + w.w_v.shape[0]);
  std::vector<float> stacked;  // (rows, d): W_Q, W_K, W_V one under the other
  stacked.reserve(static_cast<size_t>(rows) * d);
  PreparedWeights p;
  for (const Tensor* t : {&w.w_q, &w.w_k, &w.w_v}) stacked.insert(stacked.end(), t->data.begin(), t->data.end());
  for (const Tensor* t : {&w.b_q, &w.b_k, &w.b_v}) p.qkv_bias.insert(p.qkv_bias.end(), t->data.begin(), t->data.end());
  p.qkv = pack_transposed(stacked.data(), rows, d);
  p.out = pack_transposed(w.w_o.ptr(), static_cast<int>(w.w_o.shape[0]), static_cast<int>(w.w_o.shape[1]));
  return p;
}

void attention_forward(Trace& trace, const Tensor& x, const AttentionWeights& w, const Config& c, KernelPath path,
                       const PreparedWeights* prepared) {
  validate_config(c);
  if (x.shape.size() != 3 || x.shape[0] != 1 || x.shape[2] != c.d_model)
    throw Error("input x has shape " + shape_to_string(x.shape) + "; expected (1, T, " + std::to_string(c.d_model) + ")");
  const int T = static_cast<int>(x.shape[1]);
  if (T < 1 || T > kMaxSeq)
    throw Error("sequence length must be between 1 and " + std::to_string(kMaxSeq) + ", got " + std::to_string(T));
  check_finite(x, "input x");

  const KernelSet ks = kernel_set(path);
  const int heads = c.heads, kv_heads = c.kv_heads_or_heads(), D = c.d_head();
  const int group = heads / kv_heads;  // query heads served by one key/value head

  // project
  Tensor q({1, T, c.d_model}), k({1, T, kv_heads * D}), v({1, T, kv_heads * D});
  PreparedWeights local;
  if (path == KernelPath::simd) {  // one pass over x for Q, K and V together
    if (!prepared) prepared = &(local = prepare_weights(w));
    std::vector<float> fused(static_cast<size_t>(T) * prepared->qkv.n);
    gemm_forward(fused.data(), prepared->qkv.n, x.ptr(), c.d_model, prepared->qkv, prepared->qkv_bias.data(), T,
                 1.0f, Triangle::none);
    split_columns(fused, T, q, k, v);
  } else {
    q = linear(ks, x, w.w_q, w.b_q, T);  // (1, T, d_model)
    k = linear(ks, x, w.w_k, w.b_k, T);  // (1, T, kv_heads·D)
    v = linear(ks, x, w.w_v, w.b_v, T);
  }

  // split heads
  Tensor q_heads = split_heads(q, T, heads, D);     // (1, heads, T, D)
  Tensor k_heads = split_heads(k, T, kv_heads, D);  // (1, kv_heads, T, D)
  Tensor v_heads = split_heads(v, T, kv_heads, D);

  // attend, each head on its own
  Tensor scores({1, heads, T, T}), weights({1, heads, T, T}), head_out({1, heads, T, D});
  const float scale = 1.0f / std::sqrt(static_cast<float>(D));
  for (int h = 0; h < heads; ++h) {
    const int g = h / group;
    float* s = scores.ptr() + h * T * T;
    float* p = weights.ptr() + h * T * T;
    ks.scores(s, q_heads.ptr() + h * T * D, k_heads.ptr() + g * T * D, T, D, scale, c.causal);
    ks.softmax(p, s, T, c.causal);
    ks.weighted_sum(head_out.ptr() + h * T * D, p, v_heads.ptr() + g * T * D, T, D, c.causal);
  }

  Tensor concat = concat_heads(head_out, T, heads, D);  // (1, T, d_model)
  Tensor y({1, T, c.d_model});                          // (1, T, d_model)
  if (path == KernelPath::simd)
    gemm_forward(y.ptr(), c.d_model, concat.ptr(), c.d_model, prepared->out, w.b_o.ptr(), T, 1.0f, Triangle::none);
  else
    y = linear(ks, concat, w.w_o, w.b_o, T);

  // Finite inputs can still overflow float32; say so rather than show NaN. An overflow in Q or K
  // reaches the scores, one in V reaches y, so checking those two is enough.
  check_finite(y, "the result (float32 overflow; scale the input or weights down)");
  for (int h = 0; h < heads; ++h)
    for (int i = 0; i < T; ++i)
      for (int j = 0; j <= (c.causal ? i : T - 1); ++j)
        if (!std::isfinite(scores.data[(h * T + i) * T + j]))
          throw Error("attention scores overflowed float32 in head " + std::to_string(h) +
                      "; scale the input or weights down");

  trace.add(Stage::project, "q", std::move(q));
  trace.add(Stage::project, "k", std::move(k));
  trace.add(Stage::project, "v", std::move(v));
  trace.add(Stage::split, "q_heads", std::move(q_heads));
  trace.add(Stage::split, "k_heads", std::move(k_heads));
  trace.add(Stage::split, "v_heads", std::move(v_heads));
  trace.add(Stage::attend, "scores", std::move(scores));
  trace.add(Stage::attend, "weights", std::move(weights));
  trace.add(Stage::attend, "head_out", std::move(head_out));
  trace.add(Stage::concat, "concat", std::move(concat));
  trace.add(Stage::output, "y", std::move(y));
}

}  // namespace mha
