// first_non_finite (tensor.h) on its own: every run reads every tensor it made through it (the
// overflow check), so it is compiled for speed where the rest of base/ is compiled for size.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "base/tensor.h"

namespace mha {

size_t first_non_finite(const float* values, size_t count) {
  constexpr size_t kChunk = 1024;  // checked branch-free a chunk at a time; the index found only in a bad one
  for (size_t begin = 0; begin < count; begin += kChunk) {
    const size_t end = std::min(count, begin + kChunk);
    uint32_t bad = 0;  // all exponent bits set: NaN or infinity
    for (size_t i = begin; i < end; ++i) {
      uint32_t bits;
      std::memcpy(&bits, values + i, sizeof bits);
      bad |= static_cast<uint32_t>((bits & 0x7f800000u) == 0x7f800000u);
    }
    if (!bad) continue;
    for (size_t i = begin; i < end; ++i)
      if (!std::isfinite(values[i])) return i;
  }
  return count;
}

}  // namespace mha
