// first_non_finite (tensor.h) on its own: every run reads every tensor it made through it (the
// overflow check), so it is compiled for speed where the rest of base/ is compiled for size.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <xsimd/xsimd.hpp>

#include "base/tensor.h"

namespace mha {

size_t first_non_finite(const float* values, size_t count) {
  constexpr size_t kChunk = 1024;  // checked branch-free a chunk at a time; the index found only in a bad one
  for (size_t begin = 0; begin < count; begin += kChunk) {
    const size_t end = std::min(count, begin + kChunk);
    // v − v is +0 for a finite v and NaN for NaN or ±∞, and a sum of them stays 0 until a NaN joins
    // it: two SIMD operations a vector, where a scalar bit test took 0.9 % of a decoding step
    using Batch = xsimd::batch<float>;
    constexpr size_t W = Batch::size;
    Batch sum0(0.0f), sum1(0.0f);
    size_t i = begin;
    for (; i + 2 * W <= end; i += 2 * W) {
      const Batch a = Batch::load_unaligned(values + i), b = Batch::load_unaligned(values + i + W);
      sum0 += a - a;
      sum1 += b - b;
    }
    // NaN is the one value unordered with itself. Not `x != x`: xsimd's AVX != is the ordered
    // compare, false for NaN (SSE's and WebAssembly's is the unordered one).
    uint32_t bad = xsimd::any(xsimd::isnan(sum0 + sum1));
    for (; i < end; ++i) {  // the tail: all exponent bits set is NaN or infinity
      uint32_t bits;
      std::memcpy(&bits, values + i, sizeof bits);
      bad |= static_cast<uint32_t>((bits & 0x7f800000u) == 0x7f800000u);
    }
    if (!bad) continue;
    for (size_t i = begin; i < end; ++i)
      if (!std::isfinite(values[i])) return i;
  }
  return count;
}

}  // namespace mha
