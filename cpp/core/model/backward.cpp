#include "model/backward.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "base/error.h"
#include "kernels/encoder.h"
#include "kernels/heads.h"
#include "kernels/kernel_table.h"
#include "kernels/loss.h"
#include "model/parameters.h"
#include "model/run_checks.h"

namespace mha {

namespace {

using std::to_string;

void sized(std::vector<float>& v, size_t n) { v.assign(n, 0.0f); }
void zero(std::vector<float>& v) { std::fill(v.begin(), v.end(), 0.0f); }
float* grad_of(Tensor& b) { return b.data.empty() ? nullptr : b.ptr(); }

// The tensor a block's stream leaves it as: resid_out after an MLP, else resid_mid.
const char* stream_out(const Config& c) { return has_mlp(c.preset) ? "resid_out" : "resid_mid"; }

}  // namespace

int counted_targets(const std::vector<int32_t>& targets) {
  return static_cast<int>(std::count_if(targets.begin(), targets.end(), [](int32_t t) { return t >= 0; }));
}

float mean_cross_entropy(const Trace& acts, const std::vector<int32_t>& targets, const Config& c) {
  const Tensor& probs = acts.get(-1, "probs");
  const int N = static_cast<int>(probs.numel() / c.vocab_size);  // positions × readouts
  const int counted = check_targets(targets, N, c);
  std::vector<float> losses(static_cast<size_t>(N));
  crossentropy_forward(losses.data(), acts.get(-1, "logits").ptr(), targets.data(), N, c.vocab_size);
  double total = 0.0;
  for (float l : losses) total += l;  // 0 where no target
  return static_cast<float>(total / counted);
}

void ModelBackward::run(ModelWeights& grads, HeadGates* gate_grads, const Trace& acts, const std::vector<int32_t>& ids,
                        const std::vector<int32_t>& targets, int B, int T, const ModelWeights& w, const Config& c,
                        const ForwardOptions& o) {
  if (!has_blocks(c.preset)) throw Error("the backward pass runs models with blocks, whose loss is the next token's");
  const KernelTable& op = kernel_table(o.path);
  const int N = B * T, d = c.d_model, kv = c.kv_dim(), H = c.heads, G = c.kv_heads_or_heads(), D = c.d_head(),
            V = c.vocab_size, K = c.readouts, group = H / G;
  const float scale = 1.0f / std::sqrt(static_cast<float>(D));
  const size_t TT = static_cast<size_t>(T) * T, TD = static_cast<size_t>(T) * D;
  const float dloss = 1.0f / static_cast<float>(counted_targets(targets));
  const auto sizes = static_cast<size_t>(N);
  sized(dlogits_, sizes * K * V), sized(dfinal_, sizes * d), sized(dstream_, sizes * d), sized(dln_, sizes * d);
  sized(dconcat_, sizes * d), sized(dhead_out_, sizes * d), sized(ungated_, TD);
  sized(dq_heads_, sizes * d), sized(dk_heads_, sizes * kv), sized(dv_heads_, sizes * kv);
  sized(dq_, sizes * d), sized(dk_, sizes * kv), sized(dv_, sizes * kv), sized(dscores_, TT);
  if (has_mlp(c.preset)) sized(dpre_, sizes * 4 * d), sized(dhidden_, sizes * 4 * d);
  for_each_parameter(grads, c, [](const std::string&, const ParameterSpec&, Tensor& g) { std::fill(g.data.begin(), g.data.end(), 0.0f); });
  if (gate_grads) gate_grads->assign(static_cast<size_t>(c.layers), std::vector<float>(static_cast<size_t>(H), 0.0f));

  // logits = final · Uᵀ, probs = softmax(logits) per readout row, loss = mean −ln probs[target]
  // over the counted rows: N·K rows of V (K readouts per position), one target each
  crossentropy_softmax_backward(dlogits_.data(), acts.get(-1, "probs").ptr(), targets.data(), N * K, V, dloss);
  const Tensor& last = acts.get(c.layers - 1, stream_out(c));
  const Tensor& final = has_layer_norm(c.preset) ? acts.get(-1, "ln_f") : last;
  Tensor& dU = ties_unembedding(c.preset) ? grads.token_table : grads.unembedding;
  op.linear_backward(dfinal_.data(), dU.ptr(), nullptr, dlogits_.data(), final.ptr(), w.unembedding_matrix().ptr(), N, d, K * V);
  // d(loss)/d(the residual stream), walked back block by block
  if (has_layer_norm(c.preset))
    op.layernorm_backward(dstream_.data(), grads.ln_f_weight.ptr(), grads.ln_f_bias.ptr(), dfinal_.data(), last.ptr(),
                          w.ln_f_weight.ptr(), acts.get(-1, "ln_f_mean").ptr(), acts.get(-1, "ln_f_rstd").ptr(), N, d);
  else
    std::copy(dfinal_.begin(), dfinal_.end(), dstream_.begin());

  for (int l = c.layers - 1; l >= 0; --l) {
    const BlockWeights& bw = w.blocks[l];
    BlockWeights& g = grads.blocks[l];
    const Tensor& in = l == 0 ? acts.get(-1, "x") : acts.get(l - 1, stream_out(c));
    if (has_mlp(c.preset)) {
      // resid_out = resid_mid + mlp_out: the stream's gradient flows to both
      zero(dhidden_);
      op.linear_backward(dhidden_.data(), g.w_proj.ptr(), grad_of(g.b_proj), dstream_.data(), acts.get(l, "mlp_hidden").ptr(),
                         bw.w_proj.ptr(), N, 4 * d, d);
      zero(dpre_);
      op.gelu_backward(dpre_.data(), acts.get(l, "mlp_pre").ptr(), dhidden_.data(), N * 4 * d);
      zero(dln_);
      op.linear_backward(dln_.data(), g.w_fc.ptr(), grad_of(g.b_fc), dpre_.data(), acts.get(l, "ln_2").ptr(), bw.w_fc.ptr(), N,
                         d, 4 * d);
      op.layernorm_backward(dstream_.data(), g.ln_2_weight.ptr(), g.ln_2_bias.ptr(), dln_.data(), acts.get(l, "resid_mid").ptr(),
                            bw.ln_2_weight.ptr(), acts.get(l, "ln_2_mean").ptr(), acts.get(l, "ln_2_rstd").ptr(), N, d);
    }
    // resid_mid = in + y, y = concat · W_Oᵀ + b_O
    const AttentionWeights& aw = bw.attention;
    AttentionWeights& ga = g.attention;
    const Tensor& concat = acts.get(l, "concat");
    zero(dconcat_);
    op.linear_backward(dconcat_.data(), ga.w_o.ptr(), grad_of(ga.b_o), dstream_.data(), concat.ptr(), aw.w_o.ptr(), N, d, d);
    split_heads(dhead_out_.data(), dconcat_.data(), B, T, H, D);
    const Tensor &q_heads = acts.get(l, "q_heads"), &k_heads = acts.get(l, "k_heads"), &v_heads = acts.get(l, "v_heads");
    const Tensor& weights = acts.get(l, "weights");
    zero(dq_heads_), zero(dk_heads_), zero(dv_heads_);
    for (int b = 0; b < B; ++b)
      for (int h = 0; h < H; ++h) {
        const size_t bh = static_cast<size_t>(b) * H + h, bg = static_cast<size_t>(b) * G + h / group;
        float* dout = dhead_out_.data() + bh * TD;
        // The concat holds gate · (weights · V): the gate's gradient is the concat's against the
        // head's output before the gate, and that output's gradient is the gate times the concat's.
        const float gate = o.gates ? gate_of(*o.gates, l, h) : 1.0f;
        if (gate_grads || gate != 1.0f) {
          const float* ungated = nullptr;
          if (gate == 1.0f) {  // the concat's columns of the head, row by row
            for (int t = 0; t < T; ++t)
              std::copy_n(concat.ptr() + (static_cast<size_t>(b) * T + t) * d + h * D, D, ungated_.data() + static_cast<size_t>(t) * D);
            ungated = ungated_.data();
          } else {
            op.weighted_sum(ungated_.data(), weights.ptr() + bh * TT, v_heads.ptr() + bg * TD, T, D, c.causal);
            ungated = ungated_.data();
          }
          if (gate_grads) {
            double sum = 0;
            for (size_t i = 0; i < TD; ++i) sum += static_cast<double>(dout[i]) * ungated[i];
            (*gate_grads)[l][h] += static_cast<float>(sum);
          }
          if (gate != 1.0f)
            for (size_t i = 0; i < TD; ++i) dout[i] *= gate;
        }
        op.attend_head_backward(dq_heads_.data() + bh * TD, dk_heads_.data() + bg * TD, dv_heads_.data() + bg * TD, dscores_.data(),
                           dout, q_heads.ptr() + bh * TD, k_heads.ptr() + bg * TD, v_heads.ptr() + bg * TD,
                           weights.ptr() + bh * TT, T, D, scale, c.causal);
      }
    merge_heads(dq_.data(), dq_heads_.data(), B, T, H, D);
    merge_heads(dk_.data(), dk_heads_.data(), B, T, G, D);
    merge_heads(dv_.data(), dv_heads_.data(), B, T, G, D);
    const Tensor& attention_in = has_layer_norm(c.preset) ? acts.get(l, "ln_1") : in;
    zero(dln_);
    op.linear_backward(dln_.data(), ga.w_q.ptr(), grad_of(ga.b_q), dq_.data(), attention_in.ptr(), aw.w_q.ptr(), N, d, d);
    op.linear_backward(dln_.data(), ga.w_k.ptr(), grad_of(ga.b_k), dk_.data(), attention_in.ptr(), aw.w_k.ptr(), N, d, kv);
    op.linear_backward(dln_.data(), ga.w_v.ptr(), grad_of(ga.b_v), dv_.data(), attention_in.ptr(), aw.w_v.ptr(), N, d, kv);
    if (has_layer_norm(c.preset))
      op.layernorm_backward(dstream_.data(), g.ln_1_weight.ptr(), g.ln_1_bias.ptr(), dln_.data(), in.ptr(),
                            bw.ln_1_weight.ptr(), acts.get(l, "ln_1_mean").ptr(), acts.get(l, "ln_1_rstd").ptr(), N, d);
    else
      for (size_t i = 0; i < dstream_.size(); ++i) dstream_[i] += dln_[i];
  }
  encoder_backward(grads.token_table.ptr(), grads.position_table.ptr(), dstream_.data(), ids.data(), B, T, d);
}

}  // namespace mha
