// exp for a batch of floats: Cephes' expf (range reduction to [-ln2/2, ln2/2], degree-5
// polynomial, scale by 2^n), about 1 ulp. xsimd 8.1.0's own exp is ~3.6x slower.
// Inputs below -87.3 give exactly 0, so -inf (a masked score) gives 0 with no NaN.
#pragma once

#include <algorithm>
#include <xsimd/xsimd.hpp>

namespace mha {

inline xsimd::batch<float> exp_batch(xsimd::batch<float> x) {
  using F = xsimd::batch<float>;
  const F lowest(-87.33654f), highest(88.72283f);
  const auto underflow = x < lowest;
  x = xsimd::min(xsimd::max(x, lowest), highest);

  // n = round(x / ln 2), to nearest even, by adding 1.5·2^23: the sum's low mantissa bits hold n.
  // The same n as nearbyint_as_int, but Emscripten emulates SSE's cvtps2dq with four scalar lrint
  // calls, which made this 2x slower in WASM.
  const F magic(12582912.0f);
  const F shifted = x * F(1.44269504088896341f) + magic;
  const F n = shifted - magic;
  const auto n_int = xsimd::bitwise_cast<xsimd::batch<int32_t>>(shifted) - xsimd::batch<int32_t>(0x4B400000);
  F r = x - n * F(0.693359375f);  // ln 2 in two parts, so r is exact
  r = r - n * F(-2.12194440e-4f);

  F p(1.9875691500e-4f);
  p = p * r + F(1.3981999507e-3f);
  p = p * r + F(8.3334519073e-3f);
  p = p * r + F(4.1665795894e-2f);
  p = p * r + F(1.6666665459e-1f);
  p = p * r + F(5.0000001201e-1f);
  p = p * (r * r) + r + F(1.0f);

  const F two_to_n = xsimd::bitwise_cast<F>((n_int + 127) << 23);
  return xsimd::select(underflow, F(0.0f), p * two_to_n);
}

// max(x[0 … n)), n ≥ 1, in batches: what a softmax subtracts before exp, so exp never overflows. A
// max is exact in any order, so any width gives the same one.
inline float max_of(const float* x, int n) {
  using F = xsimd::batch<float>;
  constexpr int W = static_cast<int>(F::size);
  float max = x[0];
  int i = 0;
  if (n >= W) {
    F max_b = F::load_unaligned(x);
    for (i = W; i + W <= n; i += W) max_b = xsimd::max(max_b, F::load_unaligned(x + i));
    alignas(64) float lanes[W];
    max_b.store_aligned(lanes);
    for (float lane : lanes) max = std::max(max, lane);
  }
  for (; i < n; ++i) max = std::max(max, x[i]);
  return max;
}

}  // namespace mha
