// AdamW, as torch.optim.AdamW (and, with weight_decay 0, torch.optim.Adam) computes it.
#pragma once

#include <cstddef>

namespace mha {

struct AdamSettings {
  float lr = 3e-3f;
  float beta1 = 0.9f, beta2 = 0.999f;
  float eps = 1e-8f;
  float weight_decay = 0.0f;  // decoupled: p −= lr·wd·p before the step
};

// One step (step counts from 1) for n parameters: m and v are the running moments, updated in place.
//   m = β1·m + (1−β1)·g;  v = β2·v + (1−β2)·g²;  p −= (lr / (1−β1^step)) · m / (√v / √(1−β2^step) + eps)
// β^step is a product in double, not std::pow, so every platform computes the same bias correction.
void adamw_update(float* params, const float* grads, float* m, float* v, size_t n, const AdamSettings& settings, int step);

}  // namespace mha
