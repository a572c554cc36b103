#include "base/tensor.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

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
  // A branch-free test per chunk (all exponent bits set = NaN or infinity), which compilers
  // vectorise; only a chunk that fails is searched for the first bad index. Every run checks x and y.
  constexpr size_t kChunk = 1024;
  const float* data = tensor.data.data();
  for (size_t begin = 0; begin < tensor.data.size(); begin += kChunk) {
    const size_t end = std::min(tensor.data.size(), begin + kChunk);
    uint32_t bad = 0;
    for (size_t i = begin; i < end; ++i) {
      uint32_t bits;
      std::memcpy(&bits, data + i, sizeof bits);
      bad |= static_cast<uint32_t>((bits & 0x7f800000u) == 0x7f800000u);
    }
    if (!bad) continue;
    for (size_t i = begin; i < end; ++i) {
      if (!std::isfinite(data[i]))
        throw Error(std::string(what) + " contains " + (std::isnan(data[i]) ? "NaN" : "infinity") + " at flat index " +
                    std::to_string(i));
    }
  }
}

}  // namespace mha
