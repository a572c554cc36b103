#include "train/adam.h"

#include <cmath>
#include <xsimd/xsimd.hpp>

namespace mha {

void adamw_update(float* params, const float* grads, float* m, float* v, size_t n, const AdamSettings& s, int step) {
  double beta1_power = 1.0, beta2_power = 1.0;
  for (int i = 0; i < step; ++i) beta1_power *= s.beta1, beta2_power *= s.beta2;
  const float step_size = static_cast<float>(s.lr / (1.0 - beta1_power));
  const float correction2_sqrt = static_cast<float>(std::sqrt(1.0 - beta2_power));
  const float decay = 1.0f - s.lr * s.weight_decay;
  // The same float operations, in the same order, on a batch of parameters at a time and then one
  // at a time on the tail (sqrt and division are correctly rounded either way): the same bits.
  using Batch = xsimd::batch<float>;
  constexpr size_t width = Batch::size;
  const Batch beta1(s.beta1), beta2(s.beta2), one_minus_beta1(1.0f - s.beta1), one_minus_beta2(1.0f - s.beta2);
  const Batch step_b(step_size), correction_b(correction2_sqrt), eps(s.eps), decay_b(decay);
  size_t i = 0;
  for (; i + width <= n; i += width) {
    const Batch g = Batch::load_unaligned(grads + i);
    const Batch m_i = beta1 * Batch::load_unaligned(m + i) + one_minus_beta1 * g;
    const Batch v_i = beta2 * Batch::load_unaligned(v + i) + one_minus_beta2 * g * g;
    m_i.store_unaligned(m + i);
    v_i.store_unaligned(v + i);
    const Batch denom = xsimd::sqrt(v_i) / correction_b + eps;
    (Batch::load_unaligned(params + i) * decay_b - step_b * m_i / denom).store_unaligned(params + i);
  }
  for (; i < n; ++i) {
    const float g = grads[i];
    m[i] = s.beta1 * m[i] + (1.0f - s.beta1) * g;
    v[i] = s.beta2 * v[i] + (1.0f - s.beta2) * g * g;
    const float denom = std::sqrt(v[i]) / correction2_sqrt + s.eps;
    params[i] = params[i] * decay - step_size * m[i] / denom;
  }
}

}  // namespace mha
