#include "model/forward.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "base/error.h"
#include "kernels/heads.h"
#include "kernels/kernel_table.h"
#include "kernels/loss.h"
#include "kernels/rope.h"
#include "model/embedding.h"
#include "model/run_checks.h"
#include "model/parameters.h"
#include "model/stages.h"

namespace mha {

float gate_of(const HeadGates& gates, int layer, int head) {
  if (static_cast<size_t>(layer) >= gates.size() || gates[layer].empty()) return 1.0f;
  return gates[layer][static_cast<size_t>(head)];
}

namespace {

using std::to_string;

[[noreturn]] void throw_not_finite(const std::string& tensor) {
  throw Error(ErrorCode::run_not_finite, "", {{"tensor", tensor}});
}

// The deferred tensors of the split and attend stages (trace.h's Deferred), made when first read.
// q_heads, k_heads, v_heads out of q, k, v, and head_out out of the concat the heads were written into.
void fill_split(const Trace& trace, int layer, Tensor& out, const Deferred& how) {
  split_heads(out.ptr(), trace.get(layer, how.from[0]).ptr(), how.B, how.T, how.n, how.D);
}

// raw_scores without a mask: the scores themselves.
void fill_copy(const Trace& trace, int layer, Tensor& out, const Deferred& how) {
  const Tensor& from = trace.get(layer, how.from[0]);
  std::copy(from.data.begin(), from.data.end(), out.data.begin());
}

// raw_scores under the causal mask: what the mask hides, the future scores, computed like the rest
// from the heads' q and k (from: (B, n, T, D) and (B, n / group, T, D)).
void fill_unmasked_scores(const Trace& trace, int layer, Tensor& out, const Deferred& how) {
  const Tensor &q = trace.get(layer, how.from[0]), &k = trace.get(layer, how.from[1]);
  const auto scores = kernel_table(static_cast<KernelPath>(how.variant)).scores;
  const size_t TT = static_cast<size_t>(how.T) * how.T, TD = static_cast<size_t>(how.T) * how.D;
  const int kv = how.n / how.group;
  for (int b = 0; b < how.B; ++b)
    for (int h = 0; h < how.n; ++h)
      scores(out.ptr() + (static_cast<size_t>(b) * how.n + h) * TT, q.ptr() + (static_cast<size_t>(b) * how.n + h) * TD,
             k.ptr() + (static_cast<size_t>(b) * kv + h / how.group) * TD, how.T, how.D, how.scale, false);
  if (first_non_finite(out.ptr(), out.numel()) < out.numel()) throw_not_finite(layer_name(layer, "raw_scores"));
}

// head_write (B, n, T, d_model) out of the concat: head h's columns of each row times the rows
// h·D … (h+1)·D − 1 of the packed W_Oᵀ, the share of the output projection that reads that head, so
// Σ_h head_write + b_O = y. W_O comes from the weights the trace keeps, never from a model that may be
// gone by the time it is read. The scalar path sums each entry in double, as its kernels do.
void fill_head_write(const Trace& trace, int layer, Tensor& out, const Deferred& how) {
  const Tensor& concat = trace.get(layer, how.from[0]);
  const PackedMatrix& w_o = trace.weights->packed.blocks.at(static_cast<size_t>(std::max(layer, 0))).attention.out;
  const int d = how.n * how.D;
  const size_t Td = static_cast<size_t>(how.T) * d;
  const auto head_of = [&](int b, int h) { return (static_cast<size_t>(b) * how.n + h) * Td; };
  if (static_cast<KernelPath>(how.variant) == KernelPath::simd) {
    for (int b = 0; b < how.B; ++b)
      for (int h = 0; h < how.n; ++h)
        gemm_forward_rows(out.ptr() + head_of(b, h), d, concat.ptr() + b * Td + h * how.D, d, w_o, h * how.D, how.D, how.T);
    return;
  }
  std::vector<float> row(static_cast<size_t>(d));
  for (int j = 0; j < d; ++j) {
    packed_get_column(w_o, j, row.data());  // W_O's row j: what output column j reads of the concat
    for (int b = 0; b < how.B; ++b)
      for (int h = 0; h < how.n; ++h)
        for (int t = 0; t < how.T; ++t) {
          const float* in = concat.ptr() + b * Td + static_cast<size_t>(t) * d + h * how.D;
          double sum = 0;
          for (int i = 0; i < how.D; ++i) sum += static_cast<double>(in[i]) * row[static_cast<size_t>(h * how.D + i)];
          out.ptr()[head_of(b, h) + static_cast<size_t>(t) * d + j] = static_cast<float>(sum);
        }
  }
}

// Q, K, V of N rows from one packed (d_model, d_model + 2·kv) matrix, x packed once for all three.
// When the panel width divides the widths, each product writes straight into its tensor; otherwise
// through one fused buffer.
void project_qkv(Tensor& q, Tensor& k, Tensor& v, const Tensor& x, const PreparedWeights& p, int N) {
  const int d = static_cast<int>(x.shape.back()), dq = static_cast<int>(q.shape.back()), dk = static_cast<int>(k.shape.back());
  thread_local PackedLhs x_packed;
  pack_lhs_into(x_packed, x.ptr(), d, N, d);
  const int panel = gemm_panel_width();
  if (dq % panel == 0 && dk % panel == 0) {
    int col = 0;
    for (Tensor* t : {&q, &k, &v}) {
      const int width = static_cast<int>(t->shape.back());
      gemm_forward_packed(t->ptr(), width, x_packed, p.qkv, p.qkv_bias.data() + col, 1.0f, Triangle::none, col,
                          col + width);
      col += width;
    }
    return;
  }
  thread_local std::vector<float> fused;
  fused.resize(static_cast<size_t>(N) * p.qkv.n);
  gemm_forward_packed(fused.data(), p.qkv.n, x_packed, p.qkv, p.qkv_bias.data(), 1.0f, Triangle::none, 0, p.qkv.n);
  for (int t = 0; t < N; ++t) {
    const float* row = fused.data() + static_cast<size_t>(t) * p.qkv.n;
    std::copy_n(row, dq, q.ptr() + static_cast<size_t>(t) * dq);
    std::copy_n(row + dq, dk, k.ptr() + static_cast<size_t>(t) * dk);
    std::copy_n(row + dq + dk, dk, v.ptr() + static_cast<size_t>(t) * dk);
  }
}

// out (N, n) = in (N, k) · wᵀ + b: SIMD from the packed wᵀ, scalar from w (n, k).
void linear(float* out, const float* in, const Tensor& w, const Tensor* b, const PackedMatrix* packed, int N,
            KernelPath path) {
  const float* bias = b && !b->data.empty() ? b->ptr() : nullptr;
  if (path == KernelPath::simd)
    gemm_forward(out, packed->n, in, packed->k, *packed, bias, N, 1.0f, Triangle::none);
  else
    kernels::linear_forward_scalar(out, in, w.ptr(), bias, N, static_cast<int>(w.shape[1]), static_cast<int>(w.shape[0]));
}

// `name` = LayerNorm(in) over each row, with the row means and 1/std it keeps for the backward pass
// as name_mean and name_rstd.
const Tensor& layernorm(Trace& trace, Stage stage, int layer, const char* name, const char* mean_name,
                        const char* rstd_name, const Tensor& in, const Tensor& weight, const Tensor& bias, int B, int T,
                        const KernelTable& ks) {
  const int d = static_cast<int>(in.shape.back());
  Tensor& out = trace.slot(stage, layer, name, {B, T, d});
  Tensor& mean = trace.slot(stage, layer, mean_name, {B, T});
  Tensor& rstd = trace.slot(stage, layer, rstd_name, {B, T});
  ks.layernorm(out.ptr(), mean.ptr(), rstd.ptr(), in.ptr(), weight.ptr(), bias.ptr(), B * T, d, kLayerNormEps);
  return out;
}

// dst = a + b, elementwise.
void add(Tensor& dst, const Tensor& a, const Tensor& b) {
  for (size_t i = 0; i < dst.data.size(); ++i) dst.data[i] = a.data[i] + b.data[i];
}

// The attention stages of block `layer` on x (B, T, d_model); returns y. With a cache (batch 1),
// the T positions follow its cached ones: their k and v are appended, and attend reads them all.
const Tensor& attention(Trace& trace, int layer, const Tensor& x, const AttentionWeights& w, const PreparedWeights* p,
                        const Config& c, int B, int T, const ForwardOptions& o) {
  const KernelTable& ks = kernel_table(o.path);
  const int d = c.d_model, heads = c.heads, kv_heads = c.kv_heads_or_heads(), D = c.d_head(), N = B * T;
  const int group = heads / kv_heads;  // query heads served by one key/value head
  KvCache* cache = o.cache;
  const int past = cache ? cache->length() : 0, keys = past + T;  // every key a query row may see

  // project
  Tensor& q = trace.slot(Stage::project, layer, "q", {B, T, d});
  Tensor& k = trace.slot(Stage::project, layer, "k", {B, T, kv_heads * D});
  Tensor& v = trace.slot(Stage::project, layer, "v", {B, T, kv_heads * D});
  if (o.path == KernelPath::simd) {
    project_qkv(q, k, v, x, *p, N);
  } else {
    ks.linear(q.ptr(), x.ptr(), w.w_q.ptr(), w.b_q.ptr(), N, d, d);
    ks.linear(k.ptr(), x.ptr(), w.w_k.ptr(), w.b_k.ptr(), N, d, kv_heads * D);
    ks.linear(v.ptr(), x.ptr(), w.w_v.ptr(), w.b_v.ptr(), N, d, kv_heads * D);
  }
  if (cache) cache->write(layer, k.ptr(), v.ptr(), T);  // the new positions' keys and values join the cached ones

  // split heads: (B, T, n·D) -> (B, n, T, D). Attend reads each head where it lies in q, k and v, so
  // the split copies are made only when read (RoPE and the backward pass read them).
  const auto split_of = [&](const char* from, int n) { return Deferred{fill_split, {from, nullptr}, B, n, T, D}; };
  trace.defer(Stage::split, layer, "q_heads", {B, heads, T, D}, split_of("q", heads));
  trace.defer(Stage::split, layer, "k_heads", {B, kv_heads, T, D}, split_of("k", kv_heads));
  trace.defer(Stage::split, layer, "v_heads", {B, kv_heads, T, D}, split_of("v", kv_heads));

  // What attend reads: head h of sequence b at q_of(b, h), its rows q_ld apart (k likewise, by group).
  const bool rotary = walks(c, Stage::rope);
  const float *q_base = q.ptr(), *k_base = k.ptr();
  if (rotary) {  // llama weights: the scores see q and k turned by their positions
    const RopeTables& tables = rope_tables(T, D, c.rope_base);
    Tensor& q_rot = trace.slot(Stage::rope, layer, "q_rot", {B, heads, T, D});
    Tensor& k_rot = trace.slot(Stage::rope, layer, "k_rot", {B, kv_heads, T, D});
    const Tensor &q_heads = trace.get(layer, "q_heads"), &k_heads = trace.get(layer, "k_heads");
    for (int i = 0; i < B * heads; ++i)
      ks.rope(q_rot.ptr() + static_cast<size_t>(i) * T * D, q_heads.ptr() + static_cast<size_t>(i) * T * D,
              tables.cos.data(), tables.sin.data(), T, D);
    for (int i = 0; i < B * kv_heads; ++i)
      ks.rope(k_rot.ptr() + static_cast<size_t>(i) * T * D, k_heads.ptr() + static_cast<size_t>(i) * T * D,
              tables.cos.data(), tables.sin.data(), T, D);
    q_base = q_rot.ptr(), k_base = k_rot.ptr();
  }
  const int q_ld = rotary ? D : heads * D, k_ld = rotary ? D : kv_heads * D, v_ld = kv_heads * D;  // the cache's rows too
  const auto q_of = [&](int b, int h) {
    return q_base + (rotary ? (static_cast<size_t>(b) * heads + h) * T * D : static_cast<size_t>(b) * T * heads * D + h * D);
  };
  const auto k_of = [&](int b, int g) {  // with a cache (batch 1, no RoPE): its rows 0 … past + T − 1
    if (cache) return cache->keys(layer, g);
    return k_base + (rotary ? (static_cast<size_t>(b) * kv_heads + g) * T * D : static_cast<size_t>(b) * T * kv_heads * D + g * D);
  };
  const auto v_of = [&](int b, int g) {
    return cache ? cache->values(layer, g) : v.ptr() + static_cast<size_t>(b) * T * kv_heads * D + g * D;
  };

  // attend, each head on its own, written into its columns of the concat
  const float scale = 1.0f / std::sqrt(static_cast<float>(D));
  // What the mask hides: the future scores, computed like the rest when read. Unmasked, the scores
  // (and a decoding step's one row sees every key: nothing of it is masked).
  trace.defer(Stage::attend, layer, "raw_scores", {B, heads, T, keys},
              c.causal && past == 0 ? Deferred{fill_unmasked_scores, {rotary ? "q_rot" : "q_heads", rotary ? "k_rot" : "k_heads"},
                                               B, heads, T, D, group, static_cast<int>(o.path), scale}
                                    : Deferred{fill_copy, {"scores", nullptr}});
  Tensor& scores = trace.slot(Stage::attend, layer, "scores", {B, heads, T, keys});
  Tensor& weights = trace.slot(Stage::attend, layer, "weights", {B, heads, T, keys});
  trace.defer(Stage::attend, layer, "head_out", {B, heads, T, D}, split_of("concat", heads));
  Tensor& concat = trace.slot(Stage::concat, layer, "concat", {B, T, d});
  const int gate_layer = std::max(layer, 0);
  // A decoding step reads the cache once for all heads (kernels::attend_step_simd), where its kernel runs.
  const bool step = cache && T == 1 && o.path == KernelPath::simd && !rotary && kernels::attends_step_in_place(D);
  if (step)
    kernels::attend_step_simd(scores.ptr(), weights.ptr(), concat.ptr(), q_of(0, 0), k_of(0, 0), v_of(0, 0), kv_heads * D,
                              heads, group, keys, D, scale, c.causal);
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < heads; ++h) {
      const int g = h / group;
      const size_t tt = (static_cast<size_t>(b) * heads + h) * T * keys;
      float* out = concat.ptr() + static_cast<size_t>(b) * T * d + h * D;
      if (!step)
        ks.attend_head(scores.ptr() + tt, weights.ptr() + tt, out, d, q_of(b, h), q_ld, k_of(b, g), k_ld, v_of(b, g), v_ld,
                       T, past, D, scale, c.causal);
      const ActivationPatch* patch = o.patch;
      if (patch && patch->kind == ActivationPatch::Kind::head_z && patch->layer == layer && patch->head == h)
        for (int t = 0; t < T; ++t) std::copy_n(patch->values + static_cast<size_t>(t) * D, D, out + static_cast<size_t>(t) * d);
      const float gate = o.gates ? gate_of(*o.gates, gate_layer, h) : 1.0f;
      if (gate == 1.0f) continue;
      for (int t = 0; t < T; ++t) {  // gated: 0 switches the head off, exactly
        float* row = out + static_cast<size_t>(t) * d;
        if (gate == 0.0f) std::fill_n(row, D, 0.0f);
        else
          for (int i = 0; i < D; ++i) row[i] *= gate;
      }
    }

  Tensor& y = trace.slot(Stage::output, layer, "y", {B, T, d});
  if (o.path == KernelPath::simd)
    gemm_forward(y.ptr(), d, concat.ptr(), d, p->out, w.b_o.ptr(), N, 1.0f, Triangle::none);
  else
    ks.linear(y.ptr(), concat.ptr(), w.w_o.ptr(), w.b_o.ptr(), N, d, d);
  if (trace.weights)  // y split by the head each part of it read: made when read (fill_head_write)
    trace.defer(Stage::output, layer, "head_write", {B, heads, T, d},
                Deferred{fill_head_write, {"concat", nullptr}, B, heads, T, D, 1, static_cast<int>(o.path)});

  return y;
}

// The positions a model has: its learned table's rows, or as many as sinusoids allow.
int positions_of(const ModelWeights& w, const Config& c) {
  if (has_blocks(c.preset)) return c.max_positions;
  return w.position_table.data.empty() ? kMaxSeq : static_cast<int>(w.position_table.shape[0]);
}

// token_embedding, position_encoding and x = their sum, (B, T, d_model). Models with blocks read
// their tables (wte from the packed unembedding when it is tied and held only there); a single layer
// draws seeded rows scaled by √d_model and sinusoidal positions, unless its file brought tables.
void embed(Trace& trace, const std::vector<int32_t>& ids, int B, int T, int past, const ModelWeights& w,
           const PreparedModel& p, const Config& c) {
  const int d = c.d_model;
  Tensor& tokens = trace.slot(Stage::embed, "token_embedding", {B, T, d});
  Tensor& positions = trace.slot(Stage::embed, "position_encoding", {B, T, d});
  Tensor& x = trace.slot(Stage::embed, "x", {B, T, d});
  if (has_blocks(c.preset) && w.token_table.data.empty()) {
    for (size_t i = 0; i < ids.size(); ++i) packed_get_column(p.unembedding, ids[i], tokens.ptr() + i * d);
  } else if (has_blocks(c.preset)) {
    for (size_t i = 0; i < ids.size(); ++i)
      std::copy_n(w.token_table.ptr() + static_cast<size_t>(ids[i]) * d, d, tokens.ptr() + i * d);
  } else {
    const Tensor rows = token_embeddings(ids, c, w.token_table);
    std::copy(rows.data.begin(), rows.data.end(), tokens.data.begin());
  }
  const Tensor table = w.position_table.data.empty() ? sinusoidal_positions(T, d) : Tensor();
  const float* position_rows = table.data.empty() ? w.position_table.ptr() + static_cast<size_t>(past) * d : table.ptr();
  for (int b = 0; b < B; ++b) std::copy_n(position_rows, static_cast<size_t>(T) * d, positions.ptr() + static_cast<size_t>(b) * T * d);
  add(x, tokens, positions);
}

}  // namespace

size_t model_trace_size(const Config& c) {
  const std::vector<Stage> stages = stages_of(c);
  size_t per_block = 0, model = 0;
  for (const TensorSpec& spec : tensor_table())
    if (std::find(stages.begin(), stages.end(), spec.stage) != stages.end())
      (stage_spec(spec.stage).per_layer ? per_block : model) += 1;
  return model + per_block * static_cast<size_t>(c.layers);
}

void model_forward(Trace& trace, const std::vector<int32_t>& ids, int B, int T, const ModelWeights& w,
                   const PreparedModel& p, const Config& c, const ForwardOptions& o) {
  validate_config(c);
  const int past = o.cache ? o.cache->length() : 0;
  check_ids(ids, B, T, past, positions_of(w, c), c);
  trace.restart(model_trace_size(c));
  trace.ids = ids;
  embed(trace, ids, B, T, past, w, p, c);
  forward_from_x(trace, B, T, w, p, c, o);
}

void forward_from_x(Trace& trace, int B, int T, const ModelWeights& w, const PreparedModel& p, const Config& c,
                    const ForwardOptions& o) {
  validate_config(c);
  const Tensor& x = trace.get(-1, "x");
  check_forward(x, w, c, B, T, o);
  const KernelTable& ks = kernel_table(o.path);
  const int d = c.d_model, N = B * T;
  const bool blocks = has_blocks(c.preset);
  trace.weights = o.weights;
  check_finite(x, "input x");

  const Tensor* stream = &x;  // the residual stream each block reads and writes
  for (int i = 0; i < c.layers; ++i) {
    const int layer = blocks ? i : -1;  // a single layer's tensors carry no layers.{i}. prefix
    const BlockWeights& bw = w.blocks[i];
    const PreparedBlock* pb = o.path == KernelPath::simd ? &p.blocks.at(i) : nullptr;  // the scalar path reads bw
    const ActivationPatch* patch = o.patch;
    if (patch && patch->kind == ActivationPatch::Kind::resid_pre && patch->layer == i)
      // The stream is the trace's own tensor (x or the last block's output): the patched run records
      // the row it read.
      std::copy_n(patch->values, d, const_cast<Tensor*>(stream)->ptr() + static_cast<size_t>(patch->position) * d);
    const Tensor* attention_in = stream;
    if (has_layer_norm(c.preset))
      attention_in = &layernorm(trace, Stage::ln_1, layer, "ln_1", "ln_1_mean", "ln_1_rstd", *stream, bw.ln_1_weight,
                                bw.ln_1_bias, B, T, ks);
    const Tensor& y = attention(trace, layer, *attention_in, bw.attention, pb ? &pb->attention : nullptr, c, B, T, o);
    if (!blocks) break;  // one attention layer: y is the result
    Tensor& resid_mid = trace.slot(Stage::residual, layer, "resid_mid", {B, T, d});
    add(resid_mid, *stream, y);
    stream = &resid_mid;
    if (!has_mlp(c.preset)) continue;
    const Tensor& ln_2 =
        layernorm(trace, Stage::ln_2, layer, "ln_2", "ln_2_mean", "ln_2_rstd", resid_mid, bw.ln_2_weight, bw.ln_2_bias, B, T, ks);
    Tensor& pre = trace.slot(Stage::mlp, layer, "mlp_pre", {B, T, 4 * d});
    linear(pre.ptr(), ln_2.ptr(), bw.w_fc, &bw.b_fc, pb ? &pb->fc : nullptr, N, o.path);
    Tensor& hidden = trace.slot(Stage::mlp, layer, "mlp_hidden", {B, T, 4 * d});
    ks.gelu(hidden.ptr(), pre.ptr(), static_cast<int>(hidden.numel()));
    Tensor& mlp_out = trace.slot(Stage::mlp, layer, "mlp_out", {B, T, d});
    linear(mlp_out.ptr(), hidden.ptr(), bw.w_proj, &bw.b_proj, pb ? &pb->proj : nullptr, N, o.path);
    Tensor& resid_out = trace.slot(Stage::mlp_residual, layer, "resid_out", {B, T, d});
    add(resid_out, resid_mid, mlp_out);
    stream = &resid_out;
  }
  if (blocks && o.head) {
    if (has_layer_norm(c.preset))
      stream = &layernorm(trace, Stage::ln_f, -1, "ln_f", "ln_f_mean", "ln_f_rstd", *stream, w.ln_f_weight, w.ln_f_bias, B, T, ks);
    // (B, T, V), or (B, T, K, V) for K readouts: the table's shape with B for its batch of 1. Each
    // readout row of V is its own softmax.
    const int V = c.vocab_size;
    Shape shape = evaluate_shape(find_tensor_spec("logits")->shape, shape_dims(c, T));
    shape[0] = B;
    Tensor& logits = trace.slot(Stage::logits, "logits", shape);
    linear(logits.ptr(), stream->ptr(), w.unembedding_matrix(), nullptr, &p.unembedding, N, o.path);
    Tensor& probs = trace.slot(Stage::predict, "probs", shape);
    softmax_forward_rows(probs.ptr(), logits.ptr(), N * c.readouts, V);
  }
  if (o.cache) o.cache->advance(T);  // every block has appended its rows
  trace.finish();
}

void check_run_finite(const Trace& trace, const Config& c) {
  for (const TraceEntry& e : trace.entries_as_made()) {
    if (e.pending) continue;
    const Tensor& t = e.tensor;
    if (!(c.causal && base_name(e.name) == "scores")) {
      if (first_non_finite(t.ptr(), t.numel()) < t.numel()) throw_not_finite(e.name);
      continue;
    }
    // (B, heads, T, past + T), past the positions a KV cache held: row i is the query at past + i,
    // finite up to its diagonal, −∞ after it
    const int64_t T = t.shape.back(), rows = t.shape[t.shape.size() - 2], past = T - rows;
    for (int64_t row = 0; row < static_cast<int64_t>(t.numel()) / T; ++row) {
      const float* r = t.ptr() + row * T;
      const int64_t i = past + row % rows;
      if (first_non_finite(r, static_cast<size_t>(i + 1)) <= static_cast<size_t>(i)) throw_not_finite(e.name);
      for (int64_t j = i + 1; j < T; ++j)
        if (r[j] != -INFINITY) throw_not_finite(e.name);
    }
  }
}

}  // namespace mha
