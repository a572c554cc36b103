#include "adam.h"

#include <cmath>

namespace mha {

void adamw_update(float* params, const float* grads, float* m, float* v, size_t n, const AdamSettings& s, int step) {
  double beta1_power = 1.0, beta2_power = 1.0;
  for (int i = 0; i < step; ++i) beta1_power *= s.beta1, beta2_power *= s.beta2;
  const float step_size = static_cast<float>(s.lr / (1.0 - beta1_power));
  const float correction2_sqrt = static_cast<float>(std::sqrt(1.0 - beta2_power));
  const float decay = 1.0f - s.lr * s.weight_decay;
  for (size_t i = 0; i < n; ++i) {
    const float g = grads[i];
    m[i] = s.beta1 * m[i] + (1.0f - s.beta1) * g;
    v[i] = s.beta2 * v[i] + (1.0f - s.beta2) * g * g;
    const float denom = std::sqrt(v[i]) / correction2_sqrt + s.eps;
    params[i] = params[i] * decay - step_size * m[i] / denom;
  }
}

}  // namespace mha
