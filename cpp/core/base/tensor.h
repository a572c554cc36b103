// A dense float32 tensor in row-major (PyTorch) order. Shapes keep the batch dimension: (1, T, d_model).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mha {

using Shape = std::vector<int64_t>;

struct Tensor {
  Shape shape;
  std::vector<float> data;

  Tensor() = default;
  Tensor(Shape shape_, std::vector<float> data_);
  explicit Tensor(Shape shape_);  // zero-filled

  size_t numel() const { return data.size(); }
  float* ptr() { return data.data(); }
  const float* ptr() const { return data.data(); }
};

size_t shape_numel(const Shape& shape);

// "(1, 8, 5, 64)": the notation used in code comments, the CLI and the page alike.
std::string shape_to_string(const Shape& shape);

// Throws mha::Error naming `what` if any value is NaN or infinite.
void check_finite(const Tensor& tensor, std::string_view what);
// The index of the first NaN or infinity of values[0, count), or count when every value is finite.
size_t first_non_finite(const float* values, size_t count);

}  // namespace mha
