#include "model/transformer.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <xsimd/xsimd.hpp>

#include "base/error.h"
#include "kernels/gelu.h"
#include "kernels/layernorm.h"
#include "base/random.h"
#include "kernels/simd_exp.h"

namespace mha {

namespace {

using std::to_string;

// Parameter streams of a model's random weights: fixed forever, so a seed keeps drawing the same model.
constexpr uint64_t kStreamModel = 1000;

template <typename Weights, typename Fn>
void visit_parameters(Weights& w, Preset preset, const Fn& fn) {
  fn("wte", w.token_table);
  fn("wpe", w.position_table);
  for (size_t i = 0; i < w.blocks.size(); ++i) {
    auto& b = w.blocks[i];
    const std::string h = "h." + to_string(i) + ".";
    if (has_layer_norm(preset)) {
      fn(h + "ln_1.weight", b.ln_1_weight);
      fn(h + "ln_1.bias", b.ln_1_bias);
    }
    auto& a = b.attention;
    fn(h + "attn.w_q", a.w_q), fn(h + "attn.b_q", a.b_q);
    fn(h + "attn.w_k", a.w_k), fn(h + "attn.b_k", a.b_k);
    fn(h + "attn.w_v", a.w_v), fn(h + "attn.b_v", a.b_v);
    fn(h + "attn.w_o", a.w_o), fn(h + "attn.b_o", a.b_o);
    if (has_mlp(preset)) {
      fn(h + "ln_2.weight", b.ln_2_weight);
      fn(h + "ln_2.bias", b.ln_2_bias);
      fn(h + "mlp.w_fc", b.w_fc), fn(h + "mlp.b_fc", b.b_fc);
      fn(h + "mlp.w_proj", b.w_proj), fn(h + "mlp.b_proj", b.b_proj);
    }
  }
  if (has_layer_norm(preset)) {
    fn("ln_f.weight", w.ln_f_weight);
    fn("ln_f.bias", w.ln_f_bias);
  }
  if (preset == Preset::attn_only) fn("lm_head", w.unembedding);
}

// (rows, cols) uniform in ±std·√3: the spread of normal(0, std) from the project's specified generator,
// so a seed draws the same bits natively and in WebAssembly (a normal draw would need libm's log and cos).
Tensor spread_matrix(int64_t rows, int64_t cols, float std, uint64_t seed) {
  Tensor t({rows, cols});
  const float bound = std * std::sqrt(3.0f);
  Rng(seed).fill_uniform(t.ptr(), t.data.size(), -bound, bound);
  return t;
}

Tensor filled(int64_t n, float value) { return Tensor({n}, std::vector<float>(static_cast<size_t>(n), value)); }

void check_shape(const Tensor& t, const Shape& expected, const std::string& name) {
  if (t.shape != expected)
    throw Error("tensor '" + name + "' has shape " + shape_to_string(t.shape) + "; expected " + shape_to_string(expected));
}

// dst = a + b, elementwise.
void add_forward(float* dst, const float* a, const float* b, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] = a[i] + b[i];
}

// out (T, n) = in (T, k) · wᵀ + b: SIMD from the packed wᵀ, scalar from w (n, k).
void linear(float* out, const float* in, const Tensor& w, const Tensor* b, const PackedMatrix& packed, int T,
            KernelPath path) {
  const float* bias = b && !b->data.empty() ? b->ptr() : nullptr;
  if (path == KernelPath::simd)
    gemm_forward(out, packed.n, in, packed.k, packed, bias, T, 1.0f, Triangle::none);
  else
    kernels::linear_forward_scalar(out, in, w.ptr(), bias, T, static_cast<int>(w.shape[1]), static_cast<int>(w.shape[0]));
}

// Rows [begin, end) of w (n, k) out of its packing B = wᵀ, as a (end - begin, k) tensor.
Tensor unpack_rows(const PackedMatrix& b, int begin, int end) {
  Tensor w({end - begin, b.k});
  for (int r = begin; r < end; ++r) packed_get_column(b, r, w.ptr() + static_cast<size_t>(r - begin) * b.k);
  return w;
}

// W_Q, W_K, W_V (rows of the stacked qkv packing) and W_O back beside the biases `rest` holds.
AttentionWeights unpack_attention_weights(const AttentionWeights& rest, const PreparedWeights& p) {
  const int d = p.out.n, kv = (p.qkv.n - d) / 2;
  AttentionWeights a = rest;
  a.w_q = unpack_rows(p.qkv, 0, d);
  a.w_k = unpack_rows(p.qkv, d, d + kv);
  a.w_v = unpack_rows(p.qkv, d + kv, d + 2 * kv);
  a.w_o = unpack_rows(p.out, 0, p.out.n);
  return a;
}

// The packing of w (n, k), after which w is freed.
PackedMatrix pack_and_free(Tensor& w) {
  PackedMatrix b = pack_transposed(w.ptr(), static_cast<int>(w.shape[0]), static_cast<int>(w.shape[1]));
  w = Tensor();
  return b;
}

void layernorm(Tensor& out, const Tensor& in, const Tensor& weight, const Tensor& bias, KernelPath path) {
  const int C = static_cast<int>(in.shape.back()), N = static_cast<int>(in.numel() / C);
  auto fn = path == KernelPath::simd ? kernels::layernorm_forward_simd : kernels::layernorm_forward_scalar;
  fn(out.ptr(), nullptr, nullptr, in.ptr(), weight.ptr(), bias.ptr(), N, C, kLayerNormEps);
}

// A row softmax over the vocabulary: each exp once (simd_exp.h, as attention's softmax), the sum
// in double. Summed batch by batch in order, so 4-wide native and WASM builds agree bit for bit.
void softmax_rows(float* out, const float* in, int rows, int n) {
  using Batch = xsimd::batch<float>;
  constexpr int kWidth = static_cast<int>(Batch::size);
  for (int r = 0; r < rows; ++r) {
    const float* x = in + static_cast<size_t>(r) * n;
    float* y = out + static_cast<size_t>(r) * n;
    const Batch max(*std::max_element(x, x + n));
    double sum = 0.0;
    int i = 0;
    for (; i + kWidth <= n; i += kWidth) {
      const Batch e = exp_batch(Batch::load_unaligned(x + i) - max);
      e.store_unaligned(y + i);
      sum += xsimd::hadd(e);
    }
    if (i < n) {  // the tail through a batch padded with -inf, whose exp is 0
      alignas(64) float tail[kWidth];
      std::fill(tail, tail + kWidth, -std::numeric_limits<float>::infinity());
      std::copy(x + i, x + n, tail);
      const Batch e = exp_batch(Batch::load_aligned(tail) - max);
      e.store_aligned(tail);
      sum += xsimd::hadd(e);
      std::copy(tail, tail + (n - i), y + i);
    }
    const Batch total(static_cast<float>(sum));
    for (i = 0; i + kWidth <= n; i += kWidth) (Batch::load_unaligned(y + i) / total).store_unaligned(y + i);
    for (; i < n; ++i) y[i] /= static_cast<float>(sum);
  }
}

}  // namespace

void for_each_parameter(ModelWeights& w, Preset preset,
                        const std::function<void(const std::string&, Tensor&)>& fn) {
  visit_parameters(w, preset, fn);
}

void for_each_parameter(const ModelWeights& w, Preset preset,
                        const std::function<void(const std::string&, const Tensor&)>& fn) {
  visit_parameters(w, preset, fn);
}

ModelWeights zeros_like(const ModelWeights& w, Preset preset) {
  ModelWeights z;
  z.blocks.resize(w.blocks.size());
  std::vector<const Tensor*> source;  // both walks visit the parameters in the same order
  for_each_parameter(w, preset, [&](const std::string&, const Tensor& t) { source.push_back(&t); });
  size_t i = 0;
  for_each_parameter(z, preset, [&](const std::string&, Tensor& t) { t = Tensor(source[i++]->shape); });
  return z;
}

void check_model_weights(const ModelWeights& w, const Config& c) {
  validate_config(c);
  const int64_t d = c.d_model, V = c.vocab_size, P = c.max_positions;
  if (static_cast<int>(w.blocks.size()) != c.layers)
    throw Error("the model has " + to_string(w.blocks.size()) + " blocks; expected " + to_string(c.layers));
  check_shape(w.token_table, {V, d}, "wte");
  check_shape(w.position_table, {P, d}, "wpe");
  for (int i = 0; i < c.layers; ++i) {
    const BlockWeights& b = w.blocks[i];
    const std::string h = "h." + to_string(i) + ".";
    check_attention_weights(b.attention, c);
    if (has_layer_norm(c.preset)) {
      for (auto [t, n] : {std::pair{&b.ln_1_weight, "ln_1.weight"}, {&b.ln_1_bias, "ln_1.bias"},
                          {&b.ln_2_weight, "ln_2.weight"}, {&b.ln_2_bias, "ln_2.bias"}})
        check_shape(*t, {d}, h + n);
    }
    if (has_mlp(c.preset)) {
      check_shape(b.w_fc, {4 * d, d}, h + "mlp.c_fc.weight (as (out, in))");
      check_shape(b.b_fc, {4 * d}, h + "mlp.c_fc.bias");
      check_shape(b.w_proj, {d, 4 * d}, h + "mlp.c_proj.weight (as (out, in))");
      check_shape(b.b_proj, {d}, h + "mlp.c_proj.bias");
    }
  }
  if (has_layer_norm(c.preset)) {
    check_shape(w.ln_f_weight, {d}, "ln_f.weight");
    check_shape(w.ln_f_bias, {d}, "ln_f.bias");
  }
  if (c.preset == Preset::attn_only) check_shape(w.unembedding, {V, d}, "lm_head.weight");
  for_each_parameter(w, c.preset, [](const std::string& name, const Tensor& t) { check_finite(t, "tensor '" + name + "'"); });
}

ModelWeights random_model_weights(const Config& c, float init_std) {
  validate_config(c);
  if (!has_blocks(c.preset)) throw Error("random_model_weights: a single layer draws its weights in weights.cpp");
  const int64_t d = c.d_model, kv = c.kv_dim();
  const float residual_std = init_std / std::sqrt(2.0f * c.layers);  // GPT-2: projections into the stream
  ModelWeights w;
  uint64_t stream = 0;
  const auto next_seed = [&] { return derive_seed(c.seed, kStreamModel + stream++); };
  w.token_table = spread_matrix(c.vocab_size, d, init_std, next_seed());
  w.position_table = spread_matrix(c.max_positions, d, init_std, next_seed());
  w.blocks.resize(c.layers);
  for (BlockWeights& b : w.blocks) {
    AttentionWeights& a = b.attention;
    a.w_q = spread_matrix(d, d, init_std, next_seed()), a.b_q = Tensor({d});
    a.w_k = spread_matrix(kv, d, init_std, next_seed()), a.b_k = Tensor({kv});
    a.w_v = spread_matrix(kv, d, init_std, next_seed()), a.b_v = Tensor({kv});
    a.w_o = spread_matrix(d, d, residual_std, next_seed()), a.b_o = Tensor({d});
    if (has_layer_norm(c.preset)) {
      b.ln_1_weight = filled(d, 1.0f), b.ln_1_bias = Tensor({d});
      b.ln_2_weight = filled(d, 1.0f), b.ln_2_bias = Tensor({d});
    }
    if (has_mlp(c.preset)) {
      b.w_fc = spread_matrix(4 * d, d, init_std, next_seed()), b.b_fc = Tensor({4 * d});
      b.w_proj = spread_matrix(d, 4 * d, residual_std, next_seed()), b.b_proj = Tensor({d});
    }
  }
  if (has_layer_norm(c.preset)) w.ln_f_weight = filled(d, 1.0f), w.ln_f_bias = Tensor({d});
  if (c.preset == Preset::attn_only) w.unembedding = spread_matrix(c.vocab_size, d, init_std, next_seed());
  return w;
}

PreparedModel prepare_model(const ModelWeights& w, const Config& c) {
  PreparedModel p;
  for (const BlockWeights& b : w.blocks) {
    PreparedBlock pb;
    pb.attention = prepare_weights(b.attention);
    if (has_mlp(c.preset)) {
      pb.fc = pack_transposed(b.w_fc.ptr(), static_cast<int>(b.w_fc.shape[0]), static_cast<int>(b.w_fc.shape[1]));
      pb.proj = pack_transposed(b.w_proj.ptr(), static_cast<int>(b.w_proj.shape[0]), static_cast<int>(b.w_proj.shape[1]));
    }
    p.blocks.push_back(std::move(pb));
  }
  const Tensor& u = w.unembedding_matrix();
  p.unembedding = pack_transposed(u.ptr(), static_cast<int>(u.shape[0]), static_cast<int>(u.shape[1]));
  return p;
}

PackedModel pack_model(ModelWeights w, const Config& c) {
  PackedModel m;
  for (BlockWeights& b : w.blocks) {
    PreparedBlock pb;
    AttentionWeights& a = b.attention;
    pb.attention = prepare_weights(a);
    a.w_q = Tensor(), a.w_k = Tensor(), a.w_v = Tensor(), a.w_o = Tensor();
    if (has_mlp(c.preset)) {
      pb.fc = pack_and_free(b.w_fc);
      pb.proj = pack_and_free(b.w_proj);
    }
    m.packed.blocks.push_back(std::move(pb));
  }
  // A tied unembedding (GPT-2) is wte: packed, it is also where the embedding reads wte's rows.
  if (has_blocks(c.preset)) m.packed.unembedding = pack_and_free(w.unembedding.data.empty() ? w.token_table : w.unembedding);
  m.rest = std::move(w);
  return m;
}

ModelWeights unpack_model(const PackedModel& m, const Config& c) {
  ModelWeights w = m.rest;
  for (size_t i = 0; i < w.blocks.size(); ++i) {
    BlockWeights& b = w.blocks[i];
    const PreparedBlock& pb = m.packed.blocks.at(i);
    b.attention = unpack_attention_weights(b.attention, pb.attention);
    if (has_mlp(c.preset)) {
      b.w_fc = unpack_rows(pb.fc, 0, pb.fc.n);
      b.w_proj = unpack_rows(pb.proj, 0, pb.proj.n);
    }
  }
  if (has_blocks(c.preset)) {
    const PackedMatrix& u = m.packed.unembedding;
    (w.token_table.data.empty() ? w.token_table : w.unembedding) = unpack_rows(u, 0, u.n);
  }
  return w;
}

AttentionWeights unpack_attention(const PackedModel& m) {
  return unpack_attention_weights(m.rest.blocks.at(0).attention, m.packed.blocks.at(0).attention);
}

size_t model_trace_size(const Config& c) {
  const std::vector<Stage> stages = stages_of(c);
  size_t per_block = 0, model = 0;
  for (const TensorSpec& spec : tensor_table())
    if (std::find(stages.begin(), stages.end(), spec.stage) != stages.end())
      (stage_spec(spec.stage).per_layer ? per_block : model) += 1;
  return model + per_block * static_cast<size_t>(c.layers);
}

void model_forward(Trace& trace, const std::vector<int32_t>& ids, const ModelWeights& w, const PreparedModel& p,
                   const Config& c, KernelPath path, const HeadSwitches& off) {
  validate_config(c);
  if (!has_blocks(c.preset)) throw Error("model_forward runs models with blocks; a single layer runs attention_forward");
  const int T = static_cast<int>(ids.size()), d = c.d_model, V = c.vocab_size;
  if (T < 1) throw Error("give at least one token");
  if (T > c.max_positions)
    throw Error(to_string(T) + " tokens, but the model has only " + to_string(c.max_positions) + " positions", "text",
                "too_many_positions", {{"tokens", to_string(T)}, {"max", to_string(c.max_positions)}});
  for (int t = 0; t < T; ++t)
    if (ids[t] < 0 || ids[t] >= V)
      throw Error("token id " + to_string(ids[t]) + " at position " + to_string(t) + " is outside the vocabulary [0, " +
                      to_string(V) + ")",
                  "text", "token_outside_vocabulary",
                  {{"id", to_string(ids[t])}, {"position", to_string(t)}, {"vocab", to_string(V)}});
  for (const auto& layer : off)
    if (layer.size() > static_cast<size_t>(c.heads)) throw Error("internal: head switches for more heads than the model has");
  if (off.size() > static_cast<size_t>(c.layers)) throw Error("internal: head switches for more layers than the model has");
  if (path == KernelPath::scalar && w.blocks.at(0).attention.w_q.data.empty())
    throw Error("internal: the scalar path reads unpacked weights (unpack_model)");

  trace.restart(model_trace_size(c));
  trace.ids = ids;
  Tensor& token_embedding = trace.slot(Stage::embed, "token_embedding", {1, T, d});
  Tensor& position_encoding = trace.slot(Stage::embed, "position_encoding", {1, T, d});
  Tensor& x = trace.slot(Stage::embed, "x", {1, T, d});
  for (int t = 0; t < T; ++t) {
    if (w.token_table.data.empty())  // tied and held only as the packed unembedding (PackedModel)
      packed_get_column(p.unembedding, ids[t], token_embedding.ptr() + t * d);
    else
      std::copy_n(w.token_table.ptr() + static_cast<size_t>(ids[t]) * d, d, token_embedding.ptr() + t * d);
    std::copy_n(w.position_table.ptr() + static_cast<size_t>(t) * d, d, position_encoding.ptr() + t * d);
  }
  add_forward(x.ptr(), token_embedding.ptr(), position_encoding.ptr(), x.numel());

  const Tensor* stream = &x;  // the residual stream each block reads and writes
  for (int i = 0; i < c.layers; ++i) {
    const BlockWeights& b = w.blocks[i];
    const Tensor* attention_in = stream;
    if (has_layer_norm(c.preset)) {
      Tensor& ln_1 = trace.slot(Stage::ln_1, i, "ln_1", {1, T, d});
      layernorm(ln_1, *stream, b.ln_1_weight, b.ln_1_bias, path);
      attention_in = &ln_1;
    }
    const Tensor& y = attention_forward(trace, *attention_in, b.attention, c, path, &p.blocks[i].attention, i,
                                        static_cast<size_t>(i) < off.size() && !off[i].empty() ? &off[i] : nullptr);
    Tensor& resid_mid = trace.slot(Stage::residual, i, "resid_mid", {1, T, d});
    add_forward(resid_mid.ptr(), stream->ptr(), y.ptr(), resid_mid.numel());
    stream = &resid_mid;
    if (!has_mlp(c.preset)) continue;
    Tensor& ln_2 = trace.slot(Stage::ln_2, i, "ln_2", {1, T, d});
    layernorm(ln_2, resid_mid, b.ln_2_weight, b.ln_2_bias, path);
    Tensor& hidden = trace.slot(Stage::mlp, i, "mlp_hidden", {1, T, 4 * d});
    linear(hidden.ptr(), ln_2.ptr(), b.w_fc, &b.b_fc, p.blocks[i].fc, T, path);
    (path == KernelPath::simd ? kernels::gelu_forward_simd : kernels::gelu_forward_scalar)(
        hidden.ptr(), hidden.ptr(), static_cast<int>(hidden.numel()));
    Tensor& mlp_out = trace.slot(Stage::mlp, i, "mlp_out", {1, T, d});
    linear(mlp_out.ptr(), hidden.ptr(), b.w_proj, &b.b_proj, p.blocks[i].proj, T, path);
    Tensor& resid_out = trace.slot(Stage::mlp_residual, i, "resid_out", {1, T, d});
    add_forward(resid_out.ptr(), resid_mid.ptr(), mlp_out.ptr(), resid_out.numel());
    stream = &resid_out;
  }
  if (has_layer_norm(c.preset)) {
    Tensor& ln_f = trace.slot(Stage::ln_f, "ln_f", {1, T, d});
    layernorm(ln_f, *stream, w.ln_f_weight, w.ln_f_bias, path);
    stream = &ln_f;
  }
  Tensor& logits = trace.slot(Stage::logits, "logits", {1, T, V});
  linear(logits.ptr(), stream->ptr(), w.unembedding_matrix(), nullptr, p.unembedding, T, path);
  check_finite(logits, "the logits (float32 overflow; the weights are too large)");
  Tensor& probs = trace.slot(Stage::predict, "probs", {1, T, V});
  softmax_rows(probs.ptr(), logits.ptr(), T, V);
  trace.finish();
}

}  // namespace mha
