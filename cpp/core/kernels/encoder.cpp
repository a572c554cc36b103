#include "kernels/encoder.h"

#include <cstddef>

namespace mha {

void encoder_forward(float* out, const int32_t* ids, const float* wte, const float* wpe, int B, int T, int C) {
  for (int b = 0; b < B; ++b)
    for (int t = 0; t < T; ++t) {
      float* o = out + (static_cast<size_t>(b) * T + t) * C;
      const float* token = wte + static_cast<size_t>(ids[b * T + t]) * C;
      const float* position = wpe + static_cast<size_t>(t) * C;
      for (int c = 0; c < C; ++c) o[c] = token[c] + position[c];
    }
}

void encoder_backward(float* dwte, float* dwpe, const float* dout, const int32_t* ids, int B, int T, int C) {
  for (int b = 0; b < B; ++b)
    for (int t = 0; t < T; ++t) {
      const float* d = dout + (static_cast<size_t>(b) * T + t) * C;
      float* token = dwte + static_cast<size_t>(ids[b * T + t]) * C;
      float* position = dwpe + static_cast<size_t>(t) * C;
      for (int c = 0; c < C; ++c) {
        token[c] += d[c];
        position[c] += d[c];
      }
    }
}

}  // namespace mha
