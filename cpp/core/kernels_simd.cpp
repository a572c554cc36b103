// The xsimd kernels: a vector loop and a scalar tail, as in xsimd's own examples.
// Reductions run in a fixed order for a given batch width, so the native build (SSE4.1, width 4)
// and the WASM build (SIMD128, width 4) give bit-identical results.
#include <algorithm>
#include <cstring>
#include <limits>
#include <xsimd/xsimd.hpp>

#include "kernels.h"
#include "simd_exp.h"

namespace mha {
namespace kernels {

namespace {

using Batch = xsimd::batch<float>;
constexpr int kWidth = static_cast<int>(Batch::size);

float dot(const float* a, const float* b, int n) {
  Batch acc(0.0f);
  int i = 0;
  for (; i + kWidth <= n; i += kWidth) acc = xsimd::fma(Batch::load_unaligned(a + i), Batch::load_unaligned(b + i), acc);
  float sum = xsimd::hadd(acc);
  for (; i < n; ++i) sum += a[i] * b[i];
  return sum;
}

}  // namespace

void linear_forward_simd(float* out, const float* in, const float* weight, const float* bias, int T, int K, int N) {
  for (int t = 0; t < T; ++t) {
    const float* x = in + t * K;
    int n = 0;
    // four output columns per pass: each load of x feeds four multiply-adds
    for (; n + 4 <= N; n += 4) {
      const float* w0 = weight + n * K;
      const float* w1 = w0 + K;
      const float* w2 = w1 + K;
      const float* w3 = w2 + K;
      Batch a0(0.0f), a1(0.0f), a2(0.0f), a3(0.0f);
      int k = 0;
      for (; k + kWidth <= K; k += kWidth) {
        const Batch xv = Batch::load_unaligned(x + k);
        a0 = xsimd::fma(xv, Batch::load_unaligned(w0 + k), a0);
        a1 = xsimd::fma(xv, Batch::load_unaligned(w1 + k), a1);
        a2 = xsimd::fma(xv, Batch::load_unaligned(w2 + k), a2);
        a3 = xsimd::fma(xv, Batch::load_unaligned(w3 + k), a3);
      }
      float s0 = xsimd::hadd(a0), s1 = xsimd::hadd(a1), s2 = xsimd::hadd(a2), s3 = xsimd::hadd(a3);
      for (; k < K; ++k) {
        s0 += x[k] * w0[k];
        s1 += x[k] * w1[k];
        s2 += x[k] * w2[k];
        s3 += x[k] * w3[k];
      }
      float* o = out + t * N + n;
      o[0] = s0 + (bias ? bias[n] : 0.0f);
      o[1] = s1 + (bias ? bias[n + 1] : 0.0f);
      o[2] = s2 + (bias ? bias[n + 2] : 0.0f);
      o[3] = s3 + (bias ? bias[n + 3] : 0.0f);
    }
    for (; n < N; ++n) out[t * N + n] = dot(x, weight + n * K, K) + (bias ? bias[n] : 0.0f);
  }
}

void scores_forward_simd(float* scores, const float* q, const float* k, int T, int D, float scale, bool causal) {
  for (int i = 0; i < T; ++i) {
    const int n = causal ? i + 1 : T;
    for (int j = 0; j < n; ++j) scores[i * T + j] = dot(q + i * D, k + j * D, D) * scale;
    for (int j = n; j < T; ++j) scores[i * T + j] = -std::numeric_limits<float>::infinity();
  }
}

void softmax_forward_simd(float* weights, const float* scores, int T, bool causal) {
  for (int i = 0; i < T; ++i) {
    const float* row = scores + i * T;
    float* out = weights + i * T;
    const int n = causal ? i + 1 : T;  // masked entries are skipped, then set to exactly 0

    // pass 1: the row max, so exp never overflows
    float max = row[0];
    for (int j = 1; j < n; ++j) max = std::max(max, row[j]);

    // pass 2: exp(s - max) and its sum; the tail goes through a padded batch so every
    // entry uses the same exp
    const Batch max_b(max);
    Batch sum_b(0.0f);
    int j = 0;
    for (; j + kWidth <= n; j += kWidth) {
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
  for (int i = 0; i < T; ++i) {
    const int n = causal ? i + 1 : T;
    float* o = out + i * D;
    int d = 0;
    for (; d + kWidth <= D; d += kWidth) {
      Batch acc(0.0f);
      for (int j = 0; j < n; ++j) acc = xsimd::fma(Batch(weights[i * T + j]), Batch::load_unaligned(v + j * D + d), acc);
      acc.store_unaligned(o + d);
    }
    for (; d < D; ++d) {
      float acc = 0.0f;
      for (int j = 0; j < n; ++j) acc += weights[i * T + j] * v[j * D + d];
      o[d] = acc;
    }
  }
}

}  // namespace kernels
}  // namespace mha
