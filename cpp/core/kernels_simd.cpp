// The xsimd kernels. Matrix products run through the packed GEMM; softmax is a vector loop with
// a padded tail. Every reduction runs in a fixed order, so the native build (SSE4.1) and the WASM
// build (SIMD128) give bit-identical results.
#include <algorithm>
#include <cstring>
#include <limits>
#include <xsimd/xsimd.hpp>

#include "gemm.h"
#include "kernels.h"
#include "simd_exp.h"

namespace mha {
namespace kernels {

namespace {
using Batch = xsimd::batch<float>;
constexpr int kWidth = static_cast<int>(Batch::size);
}  // namespace

// The three matrix products go through the packed GEMM (gemm.h). These entry points pack their
// right-hand side on each call; attention_forward packs the weights once instead.
void linear_forward_simd(float* out, const float* in, const float* weight, const float* bias, int T, int K, int N) {
  gemm_forward(out, N, in, K, pack_transposed(weight, N, K), bias, T, 1.0f, Triangle::none);
}

void scores_forward_simd(float* scores, const float* q, const float* k, int T, int D, float scale, bool causal) {
  thread_local PackedMatrix k_packed;  // one head's Kᵀ; kept so each head reuses the storage
  pack_transposed_into(k_packed, k, T, D);
  gemm_forward(scores, T, q, D, k_packed, nullptr, T, scale, causal ? Triangle::skip_upper : Triangle::none);
  if (causal)
    for (int i = 0; i < T; ++i)
      for (int j = i + 1; j < T; ++j) scores[i * T + j] = -std::numeric_limits<float>::infinity();
}

void softmax_forward_simd(float* weights, const float* scores, int T, bool causal) {
  for (int i = 0; i < T; ++i) {
    const float* row = scores + i * T;
    float* out = weights + i * T;
    const int n = causal ? i + 1 : T;  // masked entries are skipped, then set to exactly 0

    // pass 1: the row max, so exp never overflows (a max is exact in any order)
    float max = row[0];
    int j = 0;
    if (n >= kWidth) {
      Batch max_b = Batch::load_unaligned(row);
      for (j = kWidth; j + kWidth <= n; j += kWidth) max_b = xsimd::max(max_b, Batch::load_unaligned(row + j));
      alignas(64) float lanes[kWidth];
      max_b.store_aligned(lanes);
      for (float lane : lanes) max = std::max(max, lane);
    }
    for (; j < n; ++j) max = std::max(max, row[j]);

    // pass 2: exp(s - max) and its sum; the tail goes through a padded batch so every
    // entry uses the same exp
    const Batch max_b(max);
    Batch sum_b(0.0f);
    for (j = 0; j + kWidth <= n; j += kWidth) {
      const Batch e = exp_batch(Batch::load_unaligned(row + j) - max_b);
      e.store_unaligned(out + j);
      sum_b += e;
    }
    float sum = xsimd::hadd(sum_b);
    if (j < n) {
      alignas(64) float tail[kWidth];
      std::fill(tail, tail + kWidth, -std::numeric_limits<float>::infinity());
      std::memcpy(tail, row + j, sizeof(float) * (n - j));
      exp_batch(Batch::load_aligned(tail) - max_b).store_aligned(tail);
      for (int m = 0; m < n - j; ++m) {
        out[j + m] = tail[m];
        sum += tail[m];
      }
    }

    // pass 3: normalise
    const Batch sum_all(sum);
    j = 0;
    for (; j + kWidth <= n; j += kWidth) (Batch::load_unaligned(out + j) / sum_all).store_unaligned(out + j);
    for (; j < n; ++j) out[j] /= sum;
    for (j = n; j < T; ++j) out[j] = 0.0f;
  }
}

void weighted_sum_forward_simd(float* out, const float* weights, const float* v, int T, int D, bool causal) {
  thread_local PackedMatrix v_packed;  // one head's V, reusing its storage
  pack_rows_into(v_packed, v, T, D, D);
  gemm_forward(out, D, weights, T, v_packed, nullptr, T, 1.0f, causal ? Triangle::k_to_row : Triangle::none);
}

}  // namespace kernels
}  // namespace mha
