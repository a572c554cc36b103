// The oracle: the textbook loops, accumulated in double so they are more exact than what they check.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "kernels/kernels.h"

namespace mha {

const char* kernel_path_name(KernelPath path) { return path == KernelPath::simd ? "simd" : "scalar"; }

namespace kernels {

void linear_forward_scalar(float* out, const float* in, const float* weight, const float* bias, int T, int K, int N) {
  for (int t = 0; t < T; ++t) {
    for (int n = 0; n < N; ++n) {
      double sum = bias ? bias[n] : 0.0;
      for (int k = 0; k < K; ++k) sum += static_cast<double>(in[t * K + k]) * weight[n * K + k];
      out[t * N + n] = static_cast<float>(sum);
    }
  }
}

void scores_forward_scalar(float* scores, const float* q, const float* k, int T, int D, float scale, bool causal) {
  for (int i = 0; i < T; ++i) {
    for (int j = 0; j < T; ++j) {
      if (causal && j > i) {
        scores[i * T + j] = -std::numeric_limits<float>::infinity();
        continue;
      }
      double dot = 0.0;
      for (int d = 0; d < D; ++d) dot += static_cast<double>(q[i * D + d]) * k[j * D + d];
      scores[i * T + j] = static_cast<float>(dot * scale);
    }
  }
}

void softmax_forward_scalar(float* weights, const float* scores, int T, bool causal) {
  for (int i = 0; i < T; ++i) {
    const float* row = scores + i * T;
    float* out = weights + i * T;
    const int n = causal ? i + 1 : T;
    float max = row[0];  // subtracting the row max keeps exp from overflowing
    for (int j = 1; j < n; ++j) max = std::fmax(max, row[j]);
    double sum = 0.0;
    for (int j = 0; j < n; ++j) sum += std::exp(static_cast<double>(row[j]) - max);
    for (int j = 0; j < T; ++j) out[j] = j < n ? static_cast<float>(std::exp(static_cast<double>(row[j]) - max) / sum) : 0.0f;
  }
}

void weighted_sum_forward_scalar(float* out, const float* weights, const float* v, int T, int D, bool causal) {
  for (int i = 0; i < T; ++i) {
    const int n = causal ? i + 1 : T;
    for (int d = 0; d < D; ++d) {
      double sum = 0.0;
      for (int j = 0; j < n; ++j) sum += static_cast<double>(weights[i * T + j]) * v[j * D + d];
      out[i * D + d] = static_cast<float>(sum);
    }
  }
}

void rope_forward_scalar(float* out, const float* x, const float* cos, const float* sin, int T, int D) {
  const int h = D / 2;
  for (int t = 0; t < T; ++t)
    for (int i = 0; i < h; ++i) {
      const double c = cos[t * h + i], s = sin[t * h + i], a = x[t * D + i], b = x[t * D + i + h];
      out[t * D + i] = static_cast<float>(a * c - b * s);
      out[t * D + i + h] = static_cast<float>(b * c + a * s);
    }
}

void attend_head_forward_scalar(float* scores, float* weights, float* out, const float* q, const float* k,
                                const float* v, int T, int D, float scale, bool causal) {
  scores_forward_scalar(scores, q, k, T, D, scale, causal);
  softmax_forward_scalar(weights, scores, T, causal);
  weighted_sum_forward_scalar(out, weights, v, T, D, causal);
}

// One head's T query rows, positions past … past + T − 1, against the past + T keys and values,
// each read where it lies (rows ld apart): the textbook loops, row by row.
void attend_head_forward_strided_scalar(float* scores, float* weights, float* out, int ldo, const float* q, int ldq,
                                        const float* k, int ldk, const float* v, int ldv, int T, int past, int D,
                                        float scale, bool causal) {
  const int keys = past + T;
  std::vector<double> e(static_cast<size_t>(keys));
  for (int i = 0; i < T; ++i) {
    const float* qi = q + static_cast<size_t>(i) * ldq;
    float* s = scores + static_cast<size_t>(i) * keys;
    float* w = weights + static_cast<size_t>(i) * keys;
    const int n = causal ? past + i + 1 : keys;  // the keys row i may see
    for (int j = 0; j < keys; ++j) {
      if (j >= n) {
        s[j] = -std::numeric_limits<float>::infinity();
        continue;
      }
      double dot = 0.0;
      for (int d = 0; d < D; ++d) dot += static_cast<double>(qi[d]) * k[static_cast<size_t>(j) * ldk + d];
      s[j] = static_cast<float>(dot * scale);
    }
    float max = s[0];
    for (int j = 1; j < n; ++j) max = std::fmax(max, s[j]);
    double sum = 0.0;
    for (int j = 0; j < n; ++j) sum += e[j] = std::exp(static_cast<double>(s[j]) - max);
    for (int j = 0; j < keys; ++j) w[j] = j < n ? static_cast<float>(e[j] / sum) : 0.0f;
    for (int d = 0; d < D; ++d) {
      double acc = 0.0;
      for (int j = 0; j < n; ++j) acc += static_cast<double>(w[j]) * v[static_cast<size_t>(j) * ldv + d];
      out[static_cast<size_t>(i) * ldo + d] = static_cast<float>(acc);
    }
  }
}

void linear_backward_scalar(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                            const float* weight, int T, int K, int N) {
  if (dinp)
    for (int t = 0; t < T; ++t)
      for (int k = 0; k < K; ++k) {
        double sum = 0.0;
        for (int n = 0; n < N; ++n) sum += static_cast<double>(dout[t * N + n]) * weight[n * K + k];
        dinp[t * K + k] += static_cast<float>(sum);
      }
  for (int n = 0; n < N; ++n) {
    for (int k = 0; k < K; ++k) {
      double sum = 0.0;
      for (int t = 0; t < T; ++t) sum += static_cast<double>(dout[t * N + n]) * inp[t * K + k];
      dweight[n * K + k] += static_cast<float>(sum);
    }
    if (dbias) {
      double sum = 0.0;
      for (int t = 0; t < T; ++t) sum += dout[t * N + n];
      dbias[n] += static_cast<float>(sum);
    }
  }
}

void attend_head_backward_scalar(float* dq, float* dk, float* dv, float* dscores, const float* dout, const float* q,
                                 const float* k, const float* v, const float* weights, int T, int D, float scale,
                                 bool causal) {
  for (int i = 0; i < T; ++i) {
    const int n = causal ? i + 1 : T;
    const float* w = weights + i * T;
    // dw_ij = dout_i · v_j; out_i = Σ_j w_ij v_j, so dv_j += w_ij dout_i
    std::vector<double> dw(static_cast<size_t>(n));
    double dot = 0.0;  // Σ_j w_ij dw_ij
    for (int j = 0; j < n; ++j) {
      double sum = 0.0;
      for (int d = 0; d < D; ++d) sum += static_cast<double>(dout[i * D + d]) * v[j * D + d];
      dw[j] = sum;
      dot += w[j] * sum;
      for (int d = 0; d < D; ++d) dv[j * D + d] += static_cast<float>(static_cast<double>(w[j]) * dout[i * D + d]);
    }
    for (int j = 0; j < T; ++j) dscores[i * T + j] = j < n ? static_cast<float>(w[j] * (dw[j] - dot)) : 0.0f;
  }
  // scores_ij = scale · q_i · k_j
  for (int i = 0; i < T; ++i)
    for (int d = 0; d < D; ++d) {
      double sum = 0.0;
      for (int j = 0; j < T; ++j) sum += static_cast<double>(dscores[i * T + j]) * k[j * D + d];
      dq[i * D + d] += static_cast<float>(sum * scale);
    }
  for (int j = 0; j < T; ++j)
    for (int d = 0; d < D; ++d) {
      double sum = 0.0;
      for (int i = 0; i < T; ++i) sum += static_cast<double>(dscores[i * T + j]) * q[i * D + d];
      dk[j * D + d] += static_cast<float>(sum * scale);
    }
}

}  // namespace kernels
}  // namespace mha
