#include "base/tensor.h"

#include <cmath>
#include <utility>

#include "base/error.h"

namespace mha {

size_t shape_numel(const Shape& shape) {
  size_t n = 1;
  for (int64_t dim : shape) n *= static_cast<size_t>(dim);
  return n;
}

Tensor::Tensor(Shape shape_, std::vector<float> data_) : shape(std::move(shape_)), data(std::move(data_)) {
  if (shape_numel(shape) != data.size()) {
    throw Error("tensor of shape " + shape_to_string(shape) + " given " + std::to_string(data.size()) +
                " values");
  }
}

Tensor::Tensor(Shape shape_) : shape(std::move(shape_)), data(shape_numel(shape), 0.0f) {}

std::string shape_to_string(const Shape& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";
  return s + ")";
}

void check_finite(const Tensor& tensor, std::string_view what) {
  const size_t i = first_non_finite(tensor.data.data(), tensor.data.size());
  if (i == tensor.data.size()) return;
  throw Error(std::string(what) + " contains " + (std::isnan(tensor.data[i]) ? "NaN" : "infinity") + " at flat index " +
              std::to_string(i));
}

}  // namespace mha
