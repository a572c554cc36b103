#include "loss.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <xsimd/xsimd.hpp>

#include "simd_exp.h"

namespace mha {

namespace {
using Batch = xsimd::batch<float>;
constexpr int kWidth = static_cast<int>(Batch::size);
}  // namespace

void softmax_forward_rows(float* probs, const float* logits, int N, int V) {
  for (int n = 0; n < N; ++n) {
    const float* x = logits + static_cast<size_t>(n) * V;
    float* p = probs + static_cast<size_t>(n) * V;
    const float max = *std::max_element(x, x + V);  // exp(x − max) ≤ 1: no overflow
    const Batch max_b(max);
    Batch sum_b(0.0f);
    int v = 0;
    for (; v + kWidth <= V; v += kWidth) {
      const Batch e = exp_batch(Batch::load_unaligned(x + v) - max_b);
      e.store_unaligned(p + v);
      sum_b += e;
    }
    float sum = xsimd::hadd(sum_b);
    if (v < V) {  // the tail through a padded batch, so every entry uses the same exp
      alignas(64) float tail[kWidth];
      std::fill(tail, tail + kWidth, -std::numeric_limits<float>::infinity());
      std::memcpy(tail, x + v, sizeof(float) * (V - v));
      exp_batch(Batch::load_aligned(tail) - max_b).store_aligned(tail);
      for (int i = 0; i < V - v; ++i) p[v + i] = tail[i], sum += tail[i];
    }
    const float inv = 1.0f / sum;
    for (v = 0; v < V; ++v) p[v] *= inv;
  }
}

void crossentropy_forward(float* losses, const float* probs, const int32_t* targets, int N, int V) {
  for (int n = 0; n < N; ++n) {
    const int32_t t = targets[n];
    losses[n] = t < 0 ? 0.0f : static_cast<float>(-std::log(static_cast<double>(probs[static_cast<size_t>(n) * V + t])));
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
