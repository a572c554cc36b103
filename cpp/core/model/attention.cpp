#include "model/attention.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "base/error.h"
#include "kernels/heads.h"
#include "kernels/rope.h"
#include "model/trace.h"

namespace mha {

namespace {

using LinearFn = void (*)(float*, const float*, const float*, const float*, int, int, int);
using AttendHeadFn = decltype(&kernels::attend_head_forward_strided_simd);
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
    return {linear_forward_scalar, attend_head_forward_strided_scalar, scores_forward_scalar, rope_forward_scalar};
  return {linear_forward_simd, attend_head_forward_strided_simd, scores_forward_simd, rope_forward_simd};
}

// Every head of (1, n_heads, T, D) turned by position with the RoPE tables.
void rope_heads(Tensor& out, const Tensor& heads, const RopeTables& tables, RopeFn rope, int T, int n_heads, int D) {
  for (int h = 0; h < n_heads; ++h)
    rope(out.ptr() + h * T * D, heads.ptr() + h * T * D, tables.cos.data(), tables.sin.data(), T, D);
}

// The deferred tensors of the split and attend stages (trace.h's Deferred).
// q_heads, k_heads, v_heads out of q, k, v, and head_out out of the concat the heads were written into.
void fill_split(const Trace& trace, Tensor& out, const Deferred& how) {
  split_heads(out.ptr(), trace.at(how.from[0]).ptr(), 1, how.T, how.n, how.D);
}

// raw_scores without a mask: the scores themselves.
void fill_copy(const Trace& trace, Tensor& out, const Deferred& how) {
  const Tensor& from = trace.at(how.from[0]);
  std::copy(from.data.begin(), from.data.end(), out.data.begin());
}

// raw_scores under the causal mask: what the mask hides, the future scores, computed like the rest
// from the heads' q and k (from[0], from[1]: (1, n, T, D) and (1, kv_heads, T, D)).
void fill_unmasked_scores(const Trace& trace, Tensor& out, const Deferred& how) {
  const Tensor &q = trace.at(how.from[0]), &k = trace.at(how.from[1]);
  const ScoresFn scores = kernel_set(static_cast<KernelPath>(how.variant)).scores;
  const size_t TT = static_cast<size_t>(how.T) * how.T, TD = static_cast<size_t>(how.T) * how.D;
  for (int h = 0; h < how.n; ++h)
    scores(out.ptr() + h * TT, q.ptr() + h * TD, k.ptr() + (h / how.group) * TD, how.T, how.D, how.scale, false);
}

// Q, K, V from one packed (d_model, d_model + 2·kv) matrix, x packed once for all three. When the
// panel width divides the widths, each product writes straight into its tensor; otherwise through
// one fused buffer.
void project_qkv(Tensor& q, Tensor& k, Tensor& v, const Tensor& x, const PreparedWeights& p, int T) {
  const int d = static_cast<int>(x.shape[2]), dq = static_cast<int>(q.shape[2]), dk = static_cast<int>(k.shape[2]);
  thread_local PackedLhs x_packed;
  pack_lhs_into(x_packed, x.ptr(), d, T, d);
  const int panel = gemm_panel_width();
  if (dq % panel == 0 && dk % panel == 0) {
    int col = 0;
    for (Tensor* t : {&q, &k, &v}) {
      const int width = static_cast<int>(t->shape[2]);
      gemm_forward_packed(t->ptr(), width, x_packed, p.qkv, p.qkv_bias.data() + col, 1.0f, Triangle::none, col,
                          col + width);
      col += width;
    }
    return;
  }
  thread_local std::vector<float> fused;
  fused.resize(static_cast<size_t>(T) * p.qkv.n);
  gemm_forward_packed(fused.data(), p.qkv.n, x_packed, p.qkv, p.qkv_bias.data(), 1.0f, Triangle::none, 0, p.qkv.n);
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

  // split heads: (1, T, n·D) -> (1, n, T, D). Attend reads each head where it lies in q, k and v, so
  // the split copies are made only when read (RoPE reads q's and k's).
  const size_t q_at = trace.last_index() - 2, k_at = q_at + 1, v_at = q_at + 2;
  const auto split_of = [&](size_t from, int n) { return Deferred{fill_split, {from, 0}, n, T, D}; };
  trace.defer(Stage::split, layer, "q_heads", {1, heads, T, D}, split_of(q_at, heads));
  const size_t q_heads_at = trace.last_index();
  trace.defer(Stage::split, layer, "k_heads", {1, kv_heads, T, D}, split_of(k_at, kv_heads));
  const size_t k_heads_at = trace.last_index();
  trace.defer(Stage::split, layer, "v_heads", {1, kv_heads, T, D}, split_of(v_at, kv_heads));

  // What attend reads: head h's q at q_base + h·q_step, its rows q_ld apart (k likewise, by group)
  const float *q_base = q.ptr(), *k_base = k.ptr();
  int q_step = D, q_ld = heads * D, k_step = D, k_ld = kv_heads * D;
  size_t q_att_at = q_heads_at, k_att_at = k_heads_at;
  if (walks(c, Stage::rope)) {  // llama weights: scores then see q and k turned by their positions
    const RopeTables& tables = rope_tables(T, D, c.rope_base);
    Tensor& q_rot = trace.slot(Stage::rope, layer, "q_rot", {1, heads, T, D});
    Tensor& k_rot = trace.slot(Stage::rope, layer, "k_rot", {1, kv_heads, T, D});
    k_att_at = trace.last_index(), q_att_at = k_att_at - 1;
    rope_heads(q_rot, trace.at(q_heads_at), tables, ks.rope, T, heads, D);
    rope_heads(k_rot, trace.at(k_heads_at), tables, ks.rope, T, kv_heads, D);
    q_base = q_rot.ptr(), k_base = k_rot.ptr();
    q_step = k_step = T * D, q_ld = k_ld = D;
  }

  // attend, each head on its own, written into its columns of the concat
  const float scale = 1.0f / std::sqrt(static_cast<float>(D));
  const size_t scores_at = trace.last_index() + 2;  // after raw_scores
  // What the mask hides: the future scores, computed like the rest when read. Unmasked, the scores.
  trace.defer(Stage::attend, layer, "raw_scores", {1, heads, T, T},
              c.causal ? Deferred{fill_unmasked_scores, {q_att_at, k_att_at}, heads, T, D, group, static_cast<int>(path), scale}
                       : Deferred{fill_copy, {scores_at, 0}});
  Tensor& scores = trace.slot(Stage::attend, layer, "scores", {1, heads, T, T});
  Tensor& weights = trace.slot(Stage::attend, layer, "weights", {1, heads, T, T});
  const size_t concat_at = trace.last_index() + 2;
  trace.defer(Stage::attend, layer, "head_out", {1, heads, T, D}, split_of(concat_at, heads));
  Tensor& concat = trace.slot(Stage::concat, layer, "concat", {1, T, d});
  for (int h = 0; h < heads; ++h) {
    const int g = h / group;
    const size_t tt = static_cast<size_t>(h) * T * T;
    float* out = concat.ptr() + h * D;
    ks.attend_head(scores.ptr() + tt, weights.ptr() + tt, out, d, q_base + static_cast<size_t>(h) * q_step, q_ld,
                   k_base + static_cast<size_t>(g) * k_step, k_ld, v.ptr() + g * D, kv_heads * D, T, D, scale, c.causal);
    if (switched_off && (*switched_off)[h])  // switched off: the head's output is zero in the concat
      for (int t = 0; t < T; ++t) std::fill_n(out + static_cast<size_t>(t) * d, D, 0.0f);
  }

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
