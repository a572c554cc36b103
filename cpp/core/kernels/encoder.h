// Token and learned position embeddings for a batch, llm.c's encoder: out (B, T, C) = wte[ids] + wpe[t].
#pragma once

#include <cstdint>

namespace mha {

void encoder_forward(float* out, const int32_t* ids, const float* wte, const float* wpe, int B, int T, int C);
// dwte[ids[b, t]] += dout[b, t]; dwpe[t] += dout[b, t] (accumulating, in a fixed order).
void encoder_backward(float* dwte, float* dwpe, const float* dout, const int32_t* ids, int B, int T, int C);

}  // namespace mha
