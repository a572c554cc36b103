#include "kernels/layernorm.h"

#include <cmath>
#include <xsimd/xsimd.hpp>

namespace mha {
namespace kernels {

namespace {
using Batch = xsimd::batch<float>;
constexpr int kWidth = static_cast<int>(Batch::size);
}  // namespace

void layernorm_forward_scalar(float* out, float* mean, float* rstd, const float* in, const float* weight,
                              const float* bias, int N, int C, float eps) {
  for (int n = 0; n < N; ++n) {
    const float* x = in + static_cast<size_t>(n) * C;
    float* y = out + static_cast<size_t>(n) * C;
    double m = 0.0;  // pass 1: the mean
    for (int c = 0; c < C; ++c) m += x[c];
    m /= C;
    double var = 0.0;  // pass 2: the variance of the centred values (biased, as PyTorch)
    for (int c = 0; c < C; ++c) var += (x[c] - m) * (x[c] - m);
    var /= C;
    const double s = 1.0 / std::sqrt(var + eps);
    for (int c = 0; c < C; ++c) y[c] = static_cast<float>((x[c] - m) * s * weight[c] + bias[c]);
    if (mean) mean[n] = static_cast<float>(m);
    if (rstd) rstd[n] = static_cast<float>(s);
  }
}

void layernorm_forward_simd(float* out, float* mean, float* rstd, const float* in, const float* weight,
                            const float* bias, int N, int C, float eps) {
  for (int n = 0; n < N; ++n) {
    const float* x = in + static_cast<size_t>(n) * C;
    float* y = out + static_cast<size_t>(n) * C;
    // pass 1: the mean (vector partial sums, then the lanes, then the tail: always that order)
    Batch acc(0.0f);
    int c = 0;
    for (; c + kWidth <= C; c += kWidth) acc += Batch::load_unaligned(x + c);
    float sum = xsimd::hadd(acc);
    for (; c < C; ++c) sum += x[c];
    const float m = sum / static_cast<float>(C);
    // pass 2: the variance of the centred values
    const Batch mb(m);
    acc = Batch(0.0f);
    for (c = 0; c + kWidth <= C; c += kWidth) {
      const Batch d = Batch::load_unaligned(x + c) - mb;
      acc += d * d;
    }
    float var = xsimd::hadd(acc);
    for (; c < C; ++c) var += (x[c] - m) * (x[c] - m);
    var /= static_cast<float>(C);
    const float s = 1.0f / std::sqrt(var + eps);  // IEEE sqrt and division: the same bits everywhere
    const Batch sb(s);
    for (c = 0; c + kWidth <= C; c += kWidth) {
      const Batch norm = (Batch::load_unaligned(x + c) - mb) * sb;
      (norm * Batch::load_unaligned(weight + c) + Batch::load_unaligned(bias + c)).store_unaligned(y + c);
    }
    for (; c < C; ++c) y[c] = (x[c] - m) * s * weight[c] + bias[c];
    if (mean) mean[n] = m;
    if (rstd) rstd[n] = s;
  }
}

// With norm = (x − mean)·rstd and g = weight·dout:
//   dbias += dout; dweight += norm·dout; dx += rstd · (g − mean(g) − norm · mean(g·norm))
void layernorm_backward_scalar(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                               const float* weight, const float* mean, const float* rstd, int N, int C) {
  for (int n = 0; n < N; ++n) {
    const float* x = inp + static_cast<size_t>(n) * C;
    const float* dy = dout + static_cast<size_t>(n) * C;
    float* dx = dinp + static_cast<size_t>(n) * C;
    double g_mean = 0.0, gn_mean = 0.0;
    for (int c = 0; c < C; ++c) {
      const double norm = (static_cast<double>(x[c]) - mean[n]) * rstd[n];
      const double g = static_cast<double>(weight[c]) * dy[c];
      g_mean += g;
      gn_mean += g * norm;
    }
    g_mean /= C;
    gn_mean /= C;
    for (int c = 0; c < C; ++c) {
      const double norm = (static_cast<double>(x[c]) - mean[n]) * rstd[n];
      const double g = static_cast<double>(weight[c]) * dy[c];
      dbias[c] += dy[c];
      dweight[c] += static_cast<float>(norm * dy[c]);
      dx[c] += static_cast<float>((g - g_mean - norm * gn_mean) * rstd[n]);
    }
  }
}

void layernorm_backward_simd(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                             const float* weight, const float* mean, const float* rstd, int N, int C) {
  for (int n = 0; n < N; ++n) {
    const float* x = inp + static_cast<size_t>(n) * C;
    const float* dy = dout + static_cast<size_t>(n) * C;
    float* dx = dinp + static_cast<size_t>(n) * C;
    const float m = mean[n], s = rstd[n];
    const Batch mb(m), sb(s);
    float g_sum = 0.0f, gn_sum = 0.0f;
    {
      Batch g_acc(0.0f), gn_acc(0.0f);
      int c = 0;
      for (; c + kWidth <= C; c += kWidth) {
        const Batch norm = (Batch::load_unaligned(x + c) - mb) * sb;
        const Batch g = Batch::load_unaligned(weight + c) * Batch::load_unaligned(dy + c);
        g_acc += g;
        gn_acc += g * norm;
      }
      g_sum = xsimd::hadd(g_acc), gn_sum = xsimd::hadd(gn_acc);
      for (; c < C; ++c) {
        const float norm = (x[c] - m) * s, g = weight[c] * dy[c];
        g_sum += g, gn_sum += g * norm;
      }
    }
    const float g_mean = g_sum / static_cast<float>(C), gn_mean = gn_sum / static_cast<float>(C);
    const Batch g_mean_b(g_mean), gn_mean_b(gn_mean);
    int c = 0;
    for (; c + kWidth <= C; c += kWidth) {
      const Batch norm = (Batch::load_unaligned(x + c) - mb) * sb;
      const Batch d = Batch::load_unaligned(dy + c);
      const Batch g = Batch::load_unaligned(weight + c) * d;
      (Batch::load_unaligned(dbias + c) + d).store_unaligned(dbias + c);
      (Batch::load_unaligned(dweight + c) + norm * d).store_unaligned(dweight + c);
      (Batch::load_unaligned(dx + c) + (g - g_mean_b - norm * gn_mean_b) * sb).store_unaligned(dx + c);
    }
    for (; c < C; ++c) {
      const float norm = (x[c] - m) * s, g = weight[c] * dy[c];
      dbias[c] += dy[c];
      dweight[c] += norm * dy[c];
      dx[c] += (g - g_mean - norm * gn_mean) * s;
    }
  }
}

}  // namespace kernels
}  // namespace mha
