#include "kernels/gelu.h"

#include <cmath>
#include <cstring>
#include <xsimd/xsimd.hpp>

#include "kernels/simd_exp.h"

namespace mha {
namespace kernels {

namespace {
using Batch = xsimd::batch<float>;
constexpr int kWidth = static_cast<int>(Batch::size);
constexpr double kSqrt2OverPi = 0.7978845608028654;
constexpr float kCubic = 0.044715f;

// tanh(a) = 1 − 2 / (e^{2a} + 1): exact at both ends (e^{2a} → 0 gives −1, → ∞ gives 1).
Batch tanh_batch(Batch a) { return Batch(1.0f) - Batch(2.0f) / (exp_batch(a + a) + Batch(1.0f)); }

// Runs f over n floats a batch at a time; the tail goes through a zero-padded batch so every
// element gets the same arithmetic.
template <typename F>
void each_batch(int N, const F& f) {
  int i = 0;
  for (; i + kWidth <= N; i += kWidth) f(i, kWidth);
  if (i < N) f(i, N - i);
}

Batch load(const float* p, int count) {
  if (count == kWidth) return Batch::load_unaligned(p);
  alignas(64) float tmp[kWidth] = {};
  std::memcpy(tmp, p, sizeof(float) * count);
  return Batch::load_aligned(tmp);
}

void store(float* p, Batch b, int count) {
  if (count == kWidth) return b.store_unaligned(p);
  alignas(64) float tmp[kWidth];
  b.store_aligned(tmp);
  std::memcpy(p, tmp, sizeof(float) * count);
}
}  // namespace

void gelu_forward_scalar(float* out, const float* in, int N) {
  for (int i = 0; i < N; ++i) {
    const double x = in[i];
    out[i] = static_cast<float>(0.5 * x * (1.0 + std::tanh(kSqrt2OverPi * (x + 0.044715 * x * x * x))));
  }
}

void gelu_forward_simd(float* out, const float* in, int N) {
  const Batch k(static_cast<float>(kSqrt2OverPi)), cubic(kCubic), half(0.5f), one(1.0f);
  each_batch(N, [&](int i, int count) {
    const Batch x = load(in + i, count);
    store(out + i, half * x * (one + tanh_batch(k * (x + cubic * x * x * x))), count);
  });
}

// d/dx 0.5·x·(1 + tanh(u)), u = k·(x + c·x³): 0.5·(1 + tanh u) + 0.5·x·(1 − tanh² u)·k·(1 + 3c·x²)
void gelu_backward_scalar(float* dinp, const float* inp, const float* dout, int N) {
  for (int i = 0; i < N; ++i) {
    const double x = inp[i];
    const double t = std::tanh(kSqrt2OverPi * (x + 0.044715 * x * x * x));
    const double grad = 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * kSqrt2OverPi * (1.0 + 3.0 * 0.044715 * x * x);
    dinp[i] += static_cast<float>(grad * dout[i]);
  }
}

void gelu_backward_simd(float* dinp, const float* inp, const float* dout, int N) {
  const Batch k(static_cast<float>(kSqrt2OverPi)), cubic(kCubic), cubic3(3.0f * kCubic), half(0.5f), one(1.0f);
  each_batch(N, [&](int i, int count) {
    const Batch x = load(inp + i, count);
    const Batch t = tanh_batch(k * (x + cubic * x * x * x));
    const Batch grad = half * (one + t) + half * x * (one - t * t) * k * (one + cubic3 * x * x);
    store(dinp + i, load(dinp + i, count) + grad * load(dout + i, count), count);
  });
}

}  // namespace kernels
}  // namespace mha
