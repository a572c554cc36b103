// LayerNorm over the last dimension, llm.c style: out (N, C) = (in − mean) · rstd · weight + bias,
// per row, with mean and rstd (N) saved for the backward pass (either may be null in inference).
// Two passes, as PyTorch does: the mean, then the variance of the centred values (a one-pass
// E[x²] − E[x]² loses the digits on a large residual stream). Scalar oracle and xsimd version; the
// xsimd one sums four lanes at a time (simd_sum.h), so every build without FMA (SSE4.1, AVX2, WASM
// SIMD128) gives the same bits.
#pragma once

namespace mha {
namespace kernels {

void layernorm_forward_scalar(float* out, float* mean, float* rstd, const float* in, const float* weight,
                              const float* bias, int N, int C, float eps);
void layernorm_forward_simd(float* out, float* mean, float* rstd, const float* in, const float* weight,
                            const float* bias, int N, int C, float eps);

// Accumulates (+=) into dinp, dweight and dbias, from the saved mean and rstd.
void layernorm_backward_scalar(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                               const float* weight, const float* mean, const float* rstd, int N, int C);
void layernorm_backward_simd(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                             const float* weight, const float* mean, const float* rstd, int N, int C);

}  // namespace kernels
}  // namespace mha
