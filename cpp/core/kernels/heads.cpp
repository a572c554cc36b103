#include "kernels/heads.h"

#include <cstddef>
#include <xsimd/xsimd.hpp>

namespace mha {

namespace {

// out[0 … n) = in[0 … n), a SIMD batch at a time: rows of d_head floats are too short for memcpy's call.
void copy_row(float* out, const float* in, int n) {
  using Batch = xsimd::batch<float>;
  constexpr int width = static_cast<int>(Batch::size);
  int i = 0;
  for (; i + width <= n; i += width) Batch::load_unaligned(in + i).store_unaligned(out + i);
  for (; i < n; ++i) out[i] = in[i];
}

}  // namespace

void split_heads(float* out, const float* m, int B, int T, int n, int D) {
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < n; ++h)
      for (int t = 0; t < T; ++t)
        copy_row(out + ((static_cast<size_t>(b) * n + h) * T + t) * D, m + (static_cast<size_t>(b) * T + t) * n * D + h * D, D);
}

void merge_heads(float* out, const float* heads, int B, int T, int n, int D) {
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < n; ++h)
      for (int t = 0; t < T; ++t)
        copy_row(out + (static_cast<size_t>(b) * T + t) * n * D + h * D, heads + ((static_cast<size_t>(b) * n + h) * T + t) * D, D);
}

}  // namespace mha
