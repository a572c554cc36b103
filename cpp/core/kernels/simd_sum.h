// Sums of floats whose bits do not depend on the SIMD width: four running partial sums (entry j goes
// to lane j mod 4, in order of j), added as (l0 + l1) + (l2 + l3), then the last n mod 4 entries
// one at a time. That is what a 4-wide batch and xsimd::hadd compute on SSE4.1 and WebAssembly
// SIMD128, so those builds keep their bits, and a wider build without FMA (AVX2) gets the same ones.
#pragma once

#include <xsimd/xsimd.hpp>

namespace mha {

using Quad = xsimd::make_sized_batch_t<float, 4>;

inline float sum_of_lanes(const Quad& q) {
  alignas(16) float l[4];
  q.store_aligned(l);
  return (l[0] + l[1]) + (l[2] + l[3]);
}

// Σ x[j], j < n
inline float sum4(const float* x, int n) {
  Quad acc(0.0f);
  int j = 0;
  for (; j + 4 <= n; j += 4) acc += Quad::load_unaligned(x + j);
  float sum = sum_of_lanes(acc);
  for (; j < n; ++j) sum += x[j];
  return sum;
}

// Σ x[j]·y[j], j < n
inline float dot4(const float* x, const float* y, int n) {
  Quad acc(0.0f);
  int j = 0;
  for (; j + 4 <= n; j += 4) acc += Quad::load_unaligned(x + j) * Quad::load_unaligned(y + j);
  float sum = sum_of_lanes(acc);
  for (; j < n; ++j) sum += x[j] * y[j];
  return sum;
}

}  // namespace mha
