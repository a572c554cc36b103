// Whole-tensor comparison, as ggml's test-backend-ops does it: the largest absolute difference
// relative to the reference's largest magnitude, and non-finite entries (a -inf mask) in the same places.
#pragma once

#include <string>

#include "base/tensor.h"

namespace mha {

struct Comparison {
  bool ok = false;
  double max_abs_error = 0;    // over entries finite in both
  double max_magnitude = 0;    // of the finite entries of `expected`
  double relative_error = 0;   // max_abs_error / max_magnitude
  std::string detail;          // why it failed, empty when ok
};

Comparison compare_tensors(const Tensor& actual, const Tensor& expected, double tolerance);

}  // namespace mha
