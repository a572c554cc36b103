#include "kernels/layernorm.h"

#include <cmath>
#include <utility>
#include <xsimd/xsimd.hpp>

#include "kernels/simd_sum.h"

namespace mha {
namespace kernels {

namespace {
using Batch = xsimd::batch<float>;
constexpr int kWidth = static_cast<int>(Batch::size);

// The row sums, in simd_sum.h's order (four lanes, then the tail), so that a wider build (AVX2)
// trains the same bits as SSE4.1 and WebAssembly.
// Σ (x[c] − m)²
float centred_squares(const float* x, int C, float m) {
  const Quad mq(m);
  Quad acc(0.0f);
  int c = 0;
  for (; c + 4 <= C; c += 4) {
    const Quad d = Quad::load_unaligned(x + c) - mq;
    acc += d * d;
  }
  float sum = sum_of_lanes(acc);
  for (; c < C; ++c) sum += (x[c] - m) * (x[c] - m);
  return sum;
}

// {Σ g, Σ g·norm} for g = weight·dy and norm = (x − m)·s
std::pair<float, float> gradient_sums(const float* x, const float* dy, const float* weight, int C, float m, float s) {
  const Quad mq(m), sq(s);
  Quad g_acc(0.0f), gn_acc(0.0f);
  int c = 0;
  for (; c + 4 <= C; c += 4) {
    const Quad norm = (Quad::load_unaligned(x + c) - mq) * sq;
    const Quad g = Quad::load_unaligned(weight + c) * Quad::load_unaligned(dy + c);
    g_acc += g;
    gn_acc += g * norm;
  }
  float g_sum = sum_of_lanes(g_acc), gn_sum = sum_of_lanes(gn_acc);
  for (; c < C; ++c) {
    const float norm = (x[c] - m) * s, g = weight[c] * dy[c];
    g_sum += g, gn_sum += g * norm;
  }
  return {g_sum, gn_sum};
}
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
    // pass 1: the mean; pass 2: the variance of the centred values
    const float m = sum4(x, C) / static_cast<float>(C);
    const Batch mb(m);
    const float var = centred_squares(x, C, m) / static_cast<float>(C);
    const float s = 1.0f / std::sqrt(var + eps);  // IEEE sqrt and division: the same bits everywhere
    const Batch sb(s);
    int c = 0;
    for (; c + kWidth <= C; c += kWidth) {
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
    const auto [g_sum, gn_sum] = gradient_sums(x, dy, weight, C, m, s);
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
