// Small helpers shared by the doctest files.
#pragma once

#include <doctest/doctest.h>

#include <string>
#include <vector>
#include <xsimd/xsimd.hpp>

#include "io/compare.h"
#include "base/random.h"
#include "base/tensor.h"

namespace mha_test {

// The SIMD width, and sizes around it so every vector loop and every tail of a kernel runs.
constexpr int kWidth = static_cast<int>(xsimd::batch<float>::size);
inline const std::vector<int> kSizes = {1, 2, kWidth - 1, kWidth, kWidth + 1, 2 * kWidth + 3, 17, 64};

// A tensor of uniform values in [-scale, scale) from a fixed seed.
inline mha::Tensor random_tensor(const mha::Shape& shape, uint64_t seed, float scale = 1.0f) {
  mha::Rng rng(seed);
  mha::Tensor t(shape);
  for (float& v : t.data) v = rng.uniform(-scale, scale);
  return t;
}

// Whole-tensor check with the reason in the failure message.
inline void check_close(const mha::Tensor& actual, const mha::Tensor& expected, double tolerance,
                        const std::string& what) {
  const mha::Comparison c = mha::compare_tensors(actual, expected, tolerance);
  INFO(what << ": relative error " << c.relative_error << " " << c.detail);
  CHECK(c.ok);
}

}  // namespace mha_test
