// A 4 × 4 block of floats transposed in registers, for 4-lane batches (SSE4.1, WebAssembly SIMD128):
// the GEMM packs columns with it, and a decoding step's scores read the cached keys through it.
#pragma once

#include <xsimd/xsimd.hpp>

#include "kernels/simd_sum.h"  // Quad

namespace mha {

// col[j] lane r = row[r] lane j, for r, j < 4.
inline void transpose4(const Quad row[4], Quad col[4]) {
  using Pairs = xsimd::make_sized_batch_t<double, 2>;  // two floats as one lane, to interleave pairs
  const auto lo = [](Quad x, Quad y) {
    return xsimd::bitwise_cast<Quad>(xsimd::zip_lo(xsimd::bitwise_cast<Pairs>(x), xsimd::bitwise_cast<Pairs>(y)));
  };
  const auto hi = [](Quad x, Quad y) {
    return xsimd::bitwise_cast<Quad>(xsimd::zip_hi(xsimd::bitwise_cast<Pairs>(x), xsimd::bitwise_cast<Pairs>(y)));
  };
  const Quad a01 = xsimd::zip_lo(row[0], row[1]), a23 = xsimd::zip_lo(row[2], row[3]);  // k, k+1
  const Quad b01 = xsimd::zip_hi(row[0], row[1]), b23 = xsimd::zip_hi(row[2], row[3]);  // k+2, k+3
  col[0] = lo(a01, a23);
  col[1] = hi(a01, a23);
  col[2] = lo(b01, b23);
  col[3] = hi(b01, b23);
}

// col[j] lane r = src[r][k + j], for r, j < 4 (a null src[r] reads as zeros).
inline void transpose4_columns(const float* const src[4], int k, Quad col[4]) {
  Quad row[4];
  for (int r = 0; r < 4; ++r) row[r] = src[r] ? Quad::load_unaligned(src[r] + k) : Quad(0.0f);
  transpose4(row, col);
}

}  // namespace mha
