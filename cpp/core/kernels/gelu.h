// GELU in GPT-2's tanh form: out = 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), elementwise.
// The xsimd version builds tanh from the project's polynomial exp (simd_exp.h), so native and
// WebAssembly builds give the same bits; the scalar oracle uses std::tanh in double.
#pragma once

namespace mha {
namespace kernels {

void gelu_forward_scalar(float* out, const float* in, int N);  // out may be in
void gelu_forward_simd(float* out, const float* in, int N);

// dinp += GELU'(inp) · dout
void gelu_backward_scalar(float* dinp, const float* inp, const float* dout, int N);
void gelu_backward_simd(float* dinp, const float* inp, const float* dout, int N);

}  // namespace kernels
}  // namespace mha
