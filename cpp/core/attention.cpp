#include "attention.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "error.h"
#include "rope.h"

namespace mha {

namespace {

using LinearFn = void (*)(float*, const float*, const float*, const float*, int, int, int);
using AttendHeadFn = void (*)(float*, float*, float*, const float*, const float*, const float*, int, int, float, bool);
using ScoresFn = void (*)(float*, const float*, const float*, int, int, float, bool);
using RopeFn = void (*)(float*, const float*, const float*, const float*, int, int);

struct KernelSet {
  LinearFn linear;
  AttendHeadFn attend_head;
  ScoresFn scores;
  RopeFn rope;
};

KernelSet kernel_set(KernelPath path) {
  using namespace kernels;
  if (path == KernelPath::scalar)
    return {linear_forward_scalar, attend_head_forward_scalar, scores_forward_scalar, rope_forward_scalar};
  return {linear_forward_simd, attend_head_forward_simd, scores_forward_simd, rope_forward_simd};
}

// Every head of (1, n_heads, T, D) turned by position with the RoPE tables.
void rope_heads(Tensor& out, const Tensor& heads, const RopeTables& tables, RopeFn rope, int T, int n_heads, int D) {
  for (int h = 0; h < n_heads; ++h)
    rope(out.ptr() + h * T * D, heads.ptr() + h * T * D, tables.cos.data(), tables.sin.data(), T, D);
}

// (1, T, n_heads·D) -> (1, n_heads, T, D): head h takes columns h·D … (h+1)·D-1 of every row.
// The heads split d_model, they do not copy it.
void split_heads(Tensor& out, const Tensor& m, int T, int n_heads, int D) {
  for (int h = 0; h < n_heads; ++h)
    for (int t = 0; t < T; ++t)
      std::copy_n(m.ptr() + (t * n_heads + h) * D, D, out.ptr() + (h * T + t) * D);
}

// (1, n_heads, T, D) -> (1, T, n_heads·D): the inverse of split_heads.
void concat_heads(Tensor& out, const Tensor& heads, int T, int n_heads, int D) {
  for (int h = 0; h < n_heads; ++h)
    for (int t = 0; t < T; ++t)
      std::copy_n(heads.ptr() + (h * T + t) * D, D, out.ptr() + (t * n_heads + h) * D);
}

// Q, K, V from one packed (d_model, d_model + 2·kv) matrix. When the panel width divides the
// widths, each product writes straight into its tensor; otherwise through one fused buffer.
void project_qkv(Tensor& q, Tensor& k, Tensor& v, const Tensor& x, const PreparedWeights& p, int T) {
  const int d = static_cast<int>(x.shape[2]), dq = static_cast<int>(q.shape[2]), dk = static_cast<int>(k.shape[2]);
  const int panel = gemm_panel_width();
  if (dq % panel == 0 && dk % panel == 0) {
    int col = 0;
    for (Tensor* t : {&q, &k, &v}) {
      const int width = static_cast<int>(t->shape[2]);
      gemm_forward_columns(t->ptr(), width, x.ptr(), d, p.qkv, p.qkv_bias.data() + col, T, 1.0f, Triangle::none, col,
                           col + width);
      col += width;
    }
    return;
  }
  std::vector<float> fused(static_cast<size_t>(T) * p.qkv.n);
  gemm_forward(fused.data(), p.qkv.n, x.ptr(), d, p.qkv, p.qkv_bias.data(), T, 1.0f, Triangle::none);
  for (int t = 0; t < T; ++t) {
    const float* row = fused.data() + static_cast<size_t>(t) * p.qkv.n;
    std::copy_n(row, dq, q.ptr() + t * dq);
    std::copy_n(row + dq, dk, k.ptr() + t * dk);
    std::copy_n(row + dq + dk, dk, v.ptr() + t * dk);
  }
}

}  // namespace

PreparedWeights prepare_weights(const AttentionWeights& w) {
  const int d = static_cast<int>(w.w_q.shape[1]);
  const auto rows = [](const Tensor& t) { return static_cast<int>(t.shape[0]); };
  PreparedWeights p;
  p.qkv = pack_transposed_stacked({{w.w_q.ptr(), rows(w.w_q)}, {w.w_k.ptr(), rows(w.w_k)}, {w.w_v.ptr(), rows(w.w_v)}}, d);
  for (const Tensor* t : {&w.b_q, &w.b_k, &w.b_v}) p.qkv_bias.insert(p.qkv_bias.end(), t->data.begin(), t->data.end());
  p.out = pack_transposed(w.w_o.ptr(), rows(w.w_o), static_cast<int>(w.w_o.shape[1]));
  return p;
}

const Tensor& attention_forward(Trace& trace, const Tensor& x, const AttentionWeights& w, const Config& c,
                                KernelPath path, const PreparedWeights* prepared, int layer,
                                const std::vector<bool>* switched_off) {
  validate_config(c);
  if (x.shape.size() != 3 || x.shape[0] != 1 || x.shape[2] != c.d_model)
    throw Error("input x has shape " + shape_to_string(x.shape) + "; expected (1, T, " + std::to_string(c.d_model) + ")");
  const int T = static_cast<int>(x.shape[1]);
  if (T < 1 || T > kMaxSeq)
    throw Error("sequence length must be between 1 and " + std::to_string(kMaxSeq) + ", got " + std::to_string(T));
  check_finite(x, "input x");

  const KernelSet ks = kernel_set(path);
  const int d = c.d_model, heads = c.heads, kv_heads = c.kv_heads_or_heads(), D = c.d_head();
  const int group = heads / kv_heads;  // query heads served by one key/value head

  // project
  Tensor& q = trace.slot(Stage::project, layer, "q", {1, T, d});
  Tensor& k = trace.slot(Stage::project, layer, "k", {1, T, kv_heads * D});
  Tensor& v = trace.slot(Stage::project, layer, "v", {1, T, kv_heads * D});
  PreparedWeights local;
  if (path == KernelPath::simd) {
    if (!prepared) prepared = &(local = prepare_weights(w));
    project_qkv(q, k, v, x, *prepared, T);
  } else {
    ks.linear(q.ptr(), x.ptr(), w.w_q.ptr(), w.b_q.ptr(), T, d, d);
    ks.linear(k.ptr(), x.ptr(), w.w_k.ptr(), w.b_k.ptr(), T, d, kv_heads * D);
    ks.linear(v.ptr(), x.ptr(), w.w_v.ptr(), w.b_v.ptr(), T, d, kv_heads * D);
  }

  // split heads: (1, T, n·D) -> (1, n, T, D)
  Tensor& q_heads = trace.slot(Stage::split, layer, "q_heads", {1, heads, T, D});
  Tensor& k_heads = trace.slot(Stage::split, layer, "k_heads", {1, kv_heads, T, D});
  Tensor& v_heads = trace.slot(Stage::split, layer, "v_heads", {1, kv_heads, T, D});
  split_heads(q_heads, q, T, heads, D);
  split_heads(k_heads, k, T, kv_heads, D);
  split_heads(v_heads, v, T, kv_heads, D);

  // rope (llama weights): scores then see q and k turned by their positions
  const Tensor* q_att = &q_heads;
  const Tensor* k_att = &k_heads;
  if (walks(c, Stage::rope)) {
    const RopeTables& tables = rope_tables(T, D, c.rope_base);
    Tensor& q_rot = trace.slot(Stage::rope, layer, "q_rot", {1, heads, T, D});
    Tensor& k_rot = trace.slot(Stage::rope, layer, "k_rot", {1, kv_heads, T, D});
    rope_heads(q_rot, q_heads, tables, ks.rope, T, heads, D);
    rope_heads(k_rot, k_heads, tables, ks.rope, T, kv_heads, D);
    q_att = &q_rot, k_att = &k_rot;
  }

  // attend, each head on its own
  Tensor& raw_scores = trace.slot(Stage::attend, layer, "raw_scores", {1, heads, T, T});
  Tensor& scores = trace.slot(Stage::attend, layer, "scores", {1, heads, T, T});
  Tensor& weights = trace.slot(Stage::attend, layer, "weights", {1, heads, T, T});
  Tensor& head_out = trace.slot(Stage::attend, layer, "head_out", {1, heads, T, D});
  const float scale = 1.0f / std::sqrt(static_cast<float>(D));
  for (int h = 0; h < heads; ++h) {
    const int g = h / group;
    const size_t tt = static_cast<size_t>(h) * T * T;
    ks.attend_head(scores.ptr() + tt, weights.ptr() + tt, head_out.ptr() + h * T * D, q_att->ptr() + h * T * D,
                   k_att->ptr() + g * T * D, v_heads.ptr() + g * T * D, T, D, scale, c.causal);
    // What the mask hides: the future scores, computed like the rest (unmasked, scores are the same).
    if (c.causal)
      ks.scores(raw_scores.ptr() + tt, q_att->ptr() + h * T * D, k_att->ptr() + g * T * D, T, D, scale, false);
    else
      std::copy_n(scores.ptr() + tt, static_cast<size_t>(T) * T, raw_scores.ptr() + tt);
    if (switched_off && (*switched_off)[h]) std::fill_n(head_out.ptr() + h * T * D, static_cast<size_t>(T) * D, 0.0f);
  }

  Tensor& concat = trace.slot(Stage::concat, layer, "concat", {1, T, d});
  concat_heads(concat, head_out, T, heads, D);
  Tensor& y = trace.slot(Stage::output, layer, "y", {1, T, d});
  if (path == KernelPath::simd)
    gemm_forward(y.ptr(), d, concat.ptr(), d, prepared->out, w.b_o.ptr(), T, 1.0f, Triangle::none);
  else
    ks.linear(y.ptr(), concat.ptr(), w.w_o.ptr(), w.b_o.ptr(), T, d, d);

  // Finite inputs can still overflow float32; say so rather than show NaN. Every overflow reaches
  // y: an infinite Q, K or score turns the softmax to NaN, an infinite V reaches head_out. (A score
  // of -inf is the correct limit, a weight of 0.)
  check_finite(y, "the result (float32 overflow; scale the input or weights down)");
  return y;
}

}  // namespace mha
