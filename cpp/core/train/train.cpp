#include "train/train.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <xsimd/xsimd.hpp>

#include "kernels/encoder.h"
#include "base/error.h"
#include "kernels/gelu.h"
#include "kernels/heads.h"
#include "kernels/layernorm.h"
#include "kernels/loss.h"

namespace mha {

namespace {

// The kernels of one path, so the trainer reads as one sequence of ops.
struct Ops {
  decltype(&kernels::linear_forward_simd) linear;
  decltype(&kernels::linear_backward_simd) linear_backward;
  decltype(&kernels::attend_head_forward_simd) attend;
  decltype(&kernels::attend_head_backward_simd) attend_backward;
  decltype(&kernels::layernorm_forward_simd) layernorm;
  decltype(&kernels::layernorm_backward_simd) layernorm_backward;
  decltype(&kernels::gelu_forward_simd) gelu;
  decltype(&kernels::gelu_backward_simd) gelu_backward;
};

Ops ops_for(KernelPath path) {
  using namespace kernels;
  if (path == KernelPath::scalar)
    return {linear_forward_scalar,    linear_backward_scalar,    attend_head_forward_scalar, attend_head_backward_scalar,
            layernorm_forward_scalar, layernorm_backward_scalar, gelu_forward_scalar,        gelu_backward_scalar};
  return {linear_forward_simd,    linear_backward_simd,    attend_head_forward_simd, attend_head_backward_simd,
          layernorm_forward_simd, layernorm_backward_simd, gelu_forward_simd,        gelu_backward_simd};
}

// The sizes of a batch of B sequences of T tokens, as forward and backward both need them.
struct BatchSizes {
  int N, d, kv, H, G, D, V, group;  // rows B·T, d_model, kv width, heads, kv heads, d_head, vocab, heads per kv head
  float scale;                      // 1/√d_head
  size_t TT;                        // one head's (T, T)
};
BatchSizes sizes_of(const Config& c, int B, int T) {
  const int H = c.heads, G = c.kv_heads_or_heads(), D = c.d_head();
  return {B * T, c.d_model, c.kv_dim(), H, G, D, c.vocab_size, H / G, 1.0f / std::sqrt(static_cast<float>(D)),
          static_cast<size_t>(T) * T};
}

void zero(std::vector<float>& v) { std::fill(v.begin(), v.end(), 0.0f); }
void sized(std::vector<float>& v, size_t n) { v.assign(n, 0.0f); }
const float* bias_of(const Tensor& b) { return b.data.empty() ? nullptr : b.ptr(); }
float* grad_of(Tensor& b) { return b.data.empty() ? nullptr : b.ptr(); }

}  // namespace

Trainer::Trainer(const Config& config, ModelWeights weights, const AdamSettings& adam, KernelPath path)
    : config_(config), weights_(std::move(weights)), adam_(adam), path_(path) {
  if (!has_blocks(config_.preset)) throw Error("training needs a model with blocks (attn-only or gpt2)");
  check_model_weights(weights_, config_);
  grads_ = zeros_like(weights_, config_.preset);
  adam_m_ = zeros_like(weights_, config_.preset);
  adam_v_ = zeros_like(weights_, config_.preset);
}

void Trainer::resize(int B, int T) {
  if (B == B_ && T == T_) return;
  B_ = B, T_ = T;
  const Config& c = config_;
  const size_t N = static_cast<size_t>(B) * T, d = c.d_model, kv = c.kv_dim(), V = c.vocab_size;
  const size_t H = c.heads, TT = static_cast<size_t>(T) * T;
  const bool ln = has_layer_norm(c.preset), mlp = has_mlp(c.preset);
  sized(x_, N * d);
  acts_.resize(c.layers);
  for (LayerActs& a : acts_) {
    if (ln) sized(a.ln_1, N * d), sized(a.ln_1_mean, N), sized(a.ln_1_rstd, N);
    sized(a.q, N * d), sized(a.k, N * kv), sized(a.v, N * kv);
    sized(a.q_heads, N * d), sized(a.k_heads, N * kv), sized(a.v_heads, N * kv);
    sized(a.weights, B * H * TT), sized(a.head_out, N * d);
    sized(a.concat, N * d), sized(a.resid_mid, N * d);
    if (mlp) {
      sized(a.ln_2, N * d), sized(a.ln_2_mean, N), sized(a.ln_2_rstd, N);
      sized(a.fc, N * 4 * d), sized(a.fc_gelu, N * 4 * d), sized(a.resid_out, N * d);
    }
  }
  if (ln) sized(ln_f_, N * d), sized(ln_f_mean_, N), sized(ln_f_rstd_, N);
  sized(logits_, N * V), sized(probs_, N * V), sized(losses_, N);
  sized(dstream_, N * d), sized(dlogits_, N * V), sized(dfinal_, N * d);
  sized(dq_, N * d), sized(dk_, N * kv), sized(dv_, N * kv);
  sized(dq_heads_, N * d), sized(dk_heads_, N * kv), sized(dv_heads_, N * kv), sized(dhead_out_, N * d);
  sized(dconcat_, N * d), sized(dscores_, TT), sized(scores_scratch_, TT), sized(dln_, N * d);
  if (mlp) sized(dfc_, N * 4 * d), sized(dfc_gelu_, N * 4 * d);
  sized(dstream2_, N * d);  // y and mlp_out, which nothing needs after the residual add
}

void Trainer::forward(const std::vector<int32_t>& ids, int B, int T) {
  const Config& c = config_;
  const Ops op = ops_for(path_);
  const auto [N, d, kv, H, G, D, V, group, scale, TT] = sizes_of(c, B, T);
  float* y = dstream2_.data();  // scratch

  encoder_forward(x_.data(), ids.data(), weights_.token_table.ptr(), weights_.position_table.ptr(), B, T, d);
  const float* in = x_.data();
  for (int l = 0; l < c.layers; ++l) {
    const BlockWeights& w = weights_.blocks[l];
    const AttentionWeights& aw = w.attention;
    LayerActs& a = acts_[l];
    const float* attention_in = in;
    if (has_layer_norm(c.preset)) {
      op.layernorm(a.ln_1.data(), a.ln_1_mean.data(), a.ln_1_rstd.data(), in, w.ln_1_weight.ptr(), w.ln_1_bias.ptr(), N,
                   d, kLayerNormEps);
      attention_in = a.ln_1.data();
    }
    op.linear(a.q.data(), attention_in, aw.w_q.ptr(), bias_of(aw.b_q), N, d, d);
    op.linear(a.k.data(), attention_in, aw.w_k.ptr(), bias_of(aw.b_k), N, d, kv);
    op.linear(a.v.data(), attention_in, aw.w_v.ptr(), bias_of(aw.b_v), N, d, kv);
    split_heads(a.q_heads.data(), a.q.data(), B, T, H, D);
    split_heads(a.k_heads.data(), a.k.data(), B, T, G, D);
    split_heads(a.v_heads.data(), a.v.data(), B, T, G, D);
    for (int b = 0; b < B; ++b)
      for (int h = 0; h < H; ++h) {
        const size_t bh = static_cast<size_t>(b) * H + h, bg = static_cast<size_t>(b) * G + h / group;
        op.attend(scores_scratch_.data(), a.weights.data() + bh * TT, a.head_out.data() + bh * T * D,
                  a.q_heads.data() + bh * T * D, a.k_heads.data() + bg * T * D, a.v_heads.data() + bg * T * D, T, D,
                  scale, true);
      }
    merge_heads(a.concat.data(), a.head_out.data(), B, T, H, D);
    op.linear(y, a.concat.data(), aw.w_o.ptr(), bias_of(aw.b_o), N, d, d);
    for (size_t i = 0; i < a.resid_mid.size(); ++i) a.resid_mid[i] = in[i] + y[i];
    in = a.resid_mid.data();
    if (!has_mlp(c.preset)) continue;
    op.layernorm(a.ln_2.data(), a.ln_2_mean.data(), a.ln_2_rstd.data(), in, w.ln_2_weight.ptr(), w.ln_2_bias.ptr(), N, d,
                 kLayerNormEps);
    op.linear(a.fc.data(), a.ln_2.data(), w.w_fc.ptr(), bias_of(w.b_fc), N, d, 4 * d);
    op.gelu(a.fc_gelu.data(), a.fc.data(), N * 4 * d);
    op.linear(y, a.fc_gelu.data(), w.w_proj.ptr(), bias_of(w.b_proj), N, 4 * d, d);
    for (size_t i = 0; i < a.resid_out.size(); ++i) a.resid_out[i] = a.resid_mid[i] + y[i];
    in = a.resid_out.data();
  }
  const float* final = in;
  if (has_layer_norm(c.preset)) {
    op.layernorm(ln_f_.data(), ln_f_mean_.data(), ln_f_rstd_.data(), in, weights_.ln_f_weight.ptr(),
                 weights_.ln_f_bias.ptr(), N, d, kLayerNormEps);
    final = ln_f_.data();
  }
  op.linear(logits_.data(), final, weights_.unembedding_matrix().ptr(), nullptr, N, d, V);
  softmax_forward_rows(probs_.data(), logits_.data(), N, V);
}

void Trainer::backward(const std::vector<int32_t>& ids, const std::vector<int32_t>& targets, int B, int T, float dloss) {
  const Config& c = config_;
  const Ops op = ops_for(path_);
  const auto [N, d, kv, H, G, D, V, group, scale, TT] = sizes_of(c, B, T);
  for_each_parameter(grads_, c.preset, [](const std::string&, Tensor& g) { std::fill(g.data.begin(), g.data.end(), 0.0f); });

  // logits = final · Uᵀ, probs = softmax(logits), loss = mean −ln probs[target]
  zero(dlogits_);
  crossentropy_softmax_backward(dlogits_.data(), probs_.data(), targets.data(), N, V, dloss);
  const float* last = c.layers == 0 ? x_.data()
                      : has_mlp(c.preset) ? acts_.back().resid_out.data()
                                          : acts_.back().resid_mid.data();
  const float* final = has_layer_norm(c.preset) ? ln_f_.data() : last;
  Tensor& dU = c.preset == Preset::attn_only ? grads_.unembedding : grads_.token_table;  // GPT-2 ties U to wte
  zero(dfinal_);
  op.linear_backward(dfinal_.data(), dU.ptr(), nullptr, dlogits_.data(), final, weights_.unembedding_matrix().ptr(), N, d, V);
  zero(dstream_);  // d(loss)/d(the residual stream), walked back block by block
  if (has_layer_norm(c.preset))
    op.layernorm_backward(dstream_.data(), grads_.ln_f_weight.ptr(), grads_.ln_f_bias.ptr(), dfinal_.data(), last,
                          weights_.ln_f_weight.ptr(), ln_f_mean_.data(), ln_f_rstd_.data(), N, d);
  else
    std::copy(dfinal_.begin(), dfinal_.end(), dstream_.begin());

  for (int l = c.layers - 1; l >= 0; --l) {
    const BlockWeights& w = weights_.blocks[l];
    BlockWeights& g = grads_.blocks[l];
    const AttentionWeights& aw = w.attention;
    AttentionWeights& ga = g.attention;
    LayerActs& a = acts_[l];
    const float* in = l == 0 ? x_.data() : has_mlp(c.preset) ? acts_[l - 1].resid_out.data() : acts_[l - 1].resid_mid.data();
    if (has_mlp(c.preset)) {
      // resid_out = resid_mid + mlp_out: the stream's gradient flows to both
      zero(dfc_gelu_);
      op.linear_backward(dfc_gelu_.data(), g.w_proj.ptr(), grad_of(g.b_proj), dstream_.data(), a.fc_gelu.data(),
                         w.w_proj.ptr(), N, 4 * d, d);
      zero(dfc_);
      op.gelu_backward(dfc_.data(), a.fc.data(), dfc_gelu_.data(), N * 4 * d);
      zero(dln_);
      op.linear_backward(dln_.data(), g.w_fc.ptr(), grad_of(g.b_fc), dfc_.data(), a.ln_2.data(), w.w_fc.ptr(), N, d, 4 * d);
      op.layernorm_backward(dstream_.data(), g.ln_2_weight.ptr(), g.ln_2_bias.ptr(), dln_.data(), a.resid_mid.data(),
                            w.ln_2_weight.ptr(), a.ln_2_mean.data(), a.ln_2_rstd.data(), N, d);
    }
    // resid_mid = in + y, y = concat · W_Oᵀ + b_O
    zero(dconcat_);
    op.linear_backward(dconcat_.data(), ga.w_o.ptr(), grad_of(ga.b_o), dstream_.data(), a.concat.data(), aw.w_o.ptr(), N, d, d);
    split_heads(dhead_out_.data(), dconcat_.data(), B, T, H, D);
    zero(dq_heads_), zero(dk_heads_), zero(dv_heads_);
    for (int b = 0; b < B; ++b)
      for (int h = 0; h < H; ++h) {
        const size_t bh = static_cast<size_t>(b) * H + h, bg = static_cast<size_t>(b) * G + h / group;
        op.attend_backward(dq_heads_.data() + bh * T * D, dk_heads_.data() + bg * T * D, dv_heads_.data() + bg * T * D,
                           dscores_.data(), dhead_out_.data() + bh * T * D, a.q_heads.data() + bh * T * D,
                           a.k_heads.data() + bg * T * D, a.v_heads.data() + bg * T * D, a.weights.data() + bh * TT, T, D,
                           scale, true);
      }
    merge_heads(dq_.data(), dq_heads_.data(), B, T, H, D);
    merge_heads(dk_.data(), dk_heads_.data(), B, T, G, D);
    merge_heads(dv_.data(), dv_heads_.data(), B, T, G, D);
    const float* attention_in = has_layer_norm(c.preset) ? a.ln_1.data() : in;
    zero(dln_);
    op.linear_backward(dln_.data(), ga.w_q.ptr(), grad_of(ga.b_q), dq_.data(), attention_in, aw.w_q.ptr(), N, d, d);
    op.linear_backward(dln_.data(), ga.w_k.ptr(), grad_of(ga.b_k), dk_.data(), attention_in, aw.w_k.ptr(), N, d, kv);
    op.linear_backward(dln_.data(), ga.w_v.ptr(), grad_of(ga.b_v), dv_.data(), attention_in, aw.w_v.ptr(), N, d, kv);
    if (has_layer_norm(c.preset))
      op.layernorm_backward(dstream_.data(), g.ln_1_weight.ptr(), g.ln_1_bias.ptr(), dln_.data(), in, w.ln_1_weight.ptr(),
                            a.ln_1_mean.data(), a.ln_1_rstd.data(), N, d);
    else
      for (size_t i = 0; i < dstream_.size(); ++i) dstream_[i] += dln_[i];
  }
  encoder_backward(grads_.token_table.ptr(), grads_.position_table.ptr(), dstream_.data(), ids.data(), B, T, d);
}

float Trainer::loss_and_gradients(const std::vector<int32_t>& ids, const std::vector<int32_t>& targets, int B, int T) {
  const Config& c = config_;
  if (B < 1 || T < 1) throw Error("a batch needs at least one sequence of one token");
  if (T > c.max_positions)
    throw Error("sequences of " + std::to_string(T) + " tokens, but the model has only " + std::to_string(c.max_positions) +
                " positions");
  const size_t N = static_cast<size_t>(B) * T;
  if (ids.size() != N || targets.size() != N)
    throw Error("a batch of " + std::to_string(B) + " × " + std::to_string(T) + " needs that many ids and targets");
  int counted = 0;
  for (size_t i = 0; i < N; ++i) {
    if (ids[i] < 0 || ids[i] >= c.vocab_size) throw Error("token id " + std::to_string(ids[i]) + " is outside the vocabulary");
    if (targets[i] >= c.vocab_size || targets[i] < -1) throw Error("target " + std::to_string(targets[i]) + " is outside the vocabulary");
    counted += targets[i] >= 0;
  }
  if (counted == 0) throw Error("the batch has no position with a target");
  resize(B, T);
  forward(ids, B, T);
  crossentropy_forward(losses_.data(), probs_.data(), targets.data(), static_cast<int>(N), c.vocab_size);
  double total = 0.0;
  for (size_t i = 0; i < N; ++i) total += losses_[i];  // 0 where no target
  const float dloss = 1.0f / static_cast<float>(counted);
  backward(ids, targets, B, T, dloss);
  return static_cast<float>(total / counted);
}

float Trainer::step(const std::vector<int32_t>& ids, const std::vector<int32_t>& targets, int B, int T) {
  const float loss = loss_and_gradients(ids, targets, B, T);
  if (!std::isfinite(loss)) throw Error("the loss is not finite at step " + std::to_string(step_ + 1) + ": lower the learning rate");
  ++step_;
  std::vector<Tensor*> grads, ms, vs;
  for_each_parameter(grads_, config_.preset, [&](const std::string&, Tensor& t) { grads.push_back(&t); });
  for_each_parameter(adam_m_, config_.preset, [&](const std::string&, Tensor& t) { ms.push_back(&t); });
  for_each_parameter(adam_v_, config_.preset, [&](const std::string&, Tensor& t) { vs.push_back(&t); });
  size_t i = 0;
  for_each_parameter(weights_, config_.preset, [&](const std::string&, Tensor& p) {
    adamw_update(p.ptr(), grads[i]->ptr(), ms[i]->ptr(), vs[i]->ptr(), p.numel(), adam_, step_);
    ++i;
  });
  return loss;
}

}  // namespace mha
