#include "io/compare.h"

#include <algorithm>
#include <cmath>

namespace mha {

Comparison compare_tensors(const Tensor& actual, const Tensor& expected, double tolerance) {
  Comparison c;
  if (actual.shape != expected.shape) {
    c.detail = "shape " + shape_to_string(actual.shape) + " differs from expected " + shape_to_string(expected.shape);
    return c;
  }
  for (size_t i = 0; i < expected.numel(); ++i) {
    const float a = actual.data[i], e = expected.data[i];
    if (!std::isfinite(e) || !std::isfinite(a)) {
      if (!(a == e)) {  // also catches NaN
        c.detail = "non-finite mismatch at flat index " + std::to_string(i) + ": " + std::to_string(a) + " vs " +
                   std::to_string(e);
        return c;
      }
      continue;
    }
    c.max_abs_error = std::max(c.max_abs_error, std::fabs(static_cast<double>(a) - e));
    c.max_magnitude = std::max(c.max_magnitude, std::fabs(static_cast<double>(e)));
  }
  c.relative_error = c.max_magnitude > 0 ? c.max_abs_error / c.max_magnitude : c.max_abs_error;
  c.ok = c.relative_error <= tolerance;
  if (!c.ok) c.detail = "relative error " + std::to_string(c.relative_error) + " over tolerance " + std::to_string(tolerance);
  return c;
}

}  // namespace mha
