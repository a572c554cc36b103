#include "kernels/loss.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <xsimd/xsimd.hpp>

#include "kernels/simd_exp.h"
#include "kernels/simd_sum.h"

namespace mha {

namespace {
using Batch = xsimd::batch<float>;
constexpr int kWidth = static_cast<int>(Batch::size);
}  // namespace

void softmax_forward_rows(float* probs, const float* logits, int N, int V) {
  for (int n = 0; n < N; ++n) {
    const float* x = logits + static_cast<size_t>(n) * V;
    float* p = probs + static_cast<size_t>(n) * V;
    const Batch max_b(max_of(x, V));  // a row is a vocabulary: 50,257 logits a decoding step for GPT-2
    int v = 0;
    for (; v + kWidth <= V; v += kWidth) exp_batch(Batch::load_unaligned(x + v) - max_b).store_unaligned(p + v);
    if (v < V) {  // the tail through a padded batch, so every entry uses the same exp
      alignas(64) float tail[kWidth];
      std::fill(tail, tail + kWidth, -std::numeric_limits<float>::infinity());
      std::memcpy(tail, x + v, sizeof(float) * (V - v));
      exp_batch(Batch::load_aligned(tail) - max_b).store_aligned(tail);
      std::copy_n(tail, V - v, p + v);
    }
    const float inv = 1.0f / sum4(p, V);  // the same bits at every SIMD width
    for (v = 0; v + kWidth <= V; v += kWidth) (Batch::load_unaligned(p + v) * Batch(inv)).store_unaligned(p + v);
    for (; v < V; ++v) p[v] *= inv;
  }
}

void crossentropy_forward(float* losses, const float* logits, const int32_t* targets, int N, int V) {
  for (int n = 0; n < N; ++n) {
    const int32_t t = targets[n];
    if (t < 0) {
      losses[n] = 0.0f;
      continue;
    }
    const float* x = logits + static_cast<size_t>(n) * V;
    const double max = *std::max_element(x, x + V);
    double sum = 0;
    for (int v = 0; v < V; ++v) sum += std::exp(static_cast<double>(x[v]) - max);
    losses[n] = static_cast<float>(std::log(sum) - (static_cast<double>(x[t]) - max));
  }
}

void crossentropy_softmax_backward(float* dlogits, const float* probs, const int32_t* targets, int N, int V, float dloss) {
  for (int n = 0; n < N; ++n) {
    const int32_t t = targets[n];
    if (t < 0) continue;
    const float* p = probs + static_cast<size_t>(n) * V;
    float* d = dlogits + static_cast<size_t>(n) * V;
    for (int v = 0; v < V; ++v) d[v] += dloss * (p[v] - (v == t ? 1.0f : 0.0f));
  }
}

}  // namespace mha
