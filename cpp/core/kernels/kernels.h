// The kernels of attention, each twice: a plain scalar oracle and an xsimd version.
// Signatures follow llm.c: outputs first, then inputs, then sizes. Every matrix is row-major and
// contiguous. The xsimd versions are tested against the scalar ones on every size, tails included.
#pragma once

namespace mha {

enum class KernelPath { simd, scalar };
const char* kernel_path_name(KernelPath path);

namespace kernels {

// out (T, N) = in (T, K) · weight (N, K)ᵀ + bias (N)
void linear_forward_scalar(float* out, const float* in, const float* weight, const float* bias, int T, int K, int N);
void linear_forward_simd(float* out, const float* in, const float* weight, const float* bias, int T, int K, int N);

// scores (T, T) = q (T, D) · k (T, D)ᵀ · scale; causal: entries above the diagonal are -inf
void scores_forward_scalar(float* scores, const float* q, const float* k, int T, int D, float scale, bool causal);
void scores_forward_simd(float* scores, const float* q, const float* k, int T, int D, float scale, bool causal);

// weights (T, T) = softmax of each row of scores; causal: entries above the diagonal are exactly 0
void softmax_forward_scalar(float* weights, const float* scores, int T, bool causal);
void softmax_forward_simd(float* weights, const float* scores, int T, bool causal);

// out (T, D) = weights (T, T) · v (T, D); causal rows stop at the diagonal
void weighted_sum_forward_scalar(float* out, const float* weights, const float* v, int T, int D, bool causal);
void weighted_sum_forward_simd(float* out, const float* weights, const float* v, int T, int D, bool causal);

// x (T, D) turned pair by pair by rope.h's tables (row t: position t, columns i < D/2); D is even.
// With c = cos[t, i], s = sin[t, i], h = D/2: out[t, i] = x[t, i]·c − x[t, i+h]·s and
// out[t, i+h] = x[t, i+h]·c + x[t, i]·s (transformers' q·cos + rotate_half(q)·sin).
void rope_forward_scalar(float* out, const float* x, const float* cos, const float* sin, int T, int D);
void rope_forward_simd(float* out, const float* x, const float* cos, const float* sin, int T, int D);

// One head: the three above in turn, scores and weights kept. The SIMD version runs them one block
// of query rows at a time so the (T, T) matrices are used while they are in cache.
void attend_head_forward_scalar(float* scores, float* weights, float* out, const float* q, const float* k,
                                const float* v, int T, int D, float scale, bool causal);
void attend_head_forward_simd(float* scores, float* weights, float* out, const float* q, const float* k, const float* v,
                              int T, int D, float scale, bool causal);
// The same on a head that is a block of columns: row t of q is at q + t·ldq, and likewise for k, v
// and out (ld = D: the contiguous head above; ld = n·D: head h of a (T, n·D) q at q + h·D). So the
// heads are read out of q, k and v, and written into the concat, where they lie. The T query rows
// are positions past … past + T − 1 of a longer sequence whose past + T keys and values k and v hold
// (a KV cache: past > 0); scores and weights are (T, past + T), row i seeing keys ≤ past + i when
// causal. past = 0 is the head above.
void attend_head_forward_strided_scalar(float* scores, float* weights, float* out, int ldo, const float* q, int ldq,
                                        const float* k, int ldk, const float* v, int ldv, int T, int past, int D,
                                        float scale, bool causal);
void attend_head_forward_strided_simd(float* scores, float* weights, float* out, int ldo, const float* q, int ldq,
                                      const float* k, int ldk, const float* v, int ldv, int T, int past, int D,
                                      float scale, bool causal);

// A decoding step of every head at once: one query row (batch 1) against `keys` cached positions, row j
// of k (and v) at k + j·ld holding every K/V head's d_head values side by side; query head h reads
// K/V head h / group. scores and weights (heads, keys), out (heads·D): what attend_head_forward_strided
// gives head by head, bit for bit, reading the cache once straight through. Only where
// attends_step_in_place(D) (4 lanes: SSE4.1, WebAssembly SIMD128; D a multiple of 4).
bool attends_step_in_place(int D);
void attend_step_simd(float* scores, float* weights, float* out, const float* q, const float* k, const float* v, int ld,
                      int heads, int group, int keys, int D, float scale, bool causal);

// The backward passes. Gradients ACCUMULATE (+=), as in llm.c: grouped-query heads share k and v,
// and a tied weight gets gradients from two places.

// linear_forward's: dinp (T, K) += dout · weight; dweight (N, K) += doutᵀ · inp; dbias (N) += Σ_t dout.
// dinp and dbias may be null (not needed).
void linear_backward_scalar(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                            const float* weight, int T, int K, int N);
void linear_backward_simd(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                          const float* weight, int T, int K, int N);

// attend_head_forward's, from its saved weights: dq, dk, dv (T, D) += … ; dscores (T, T) is scratch.
// Softmax backward: dscore_ij = w_ij · (dw_ij − Σ_j' w_ij' dw_ij'); masked entries get 0.
void attend_head_backward_scalar(float* dq, float* dk, float* dv, float* dscores, const float* dout, const float* q,
                                 const float* k, const float* v, const float* weights, int T, int D, float scale,
                                 bool causal);
void attend_head_backward_simd(float* dq, float* dk, float* dv, float* dscores, const float* dout, const float* q,
                               const float* k, const float* v, const float* weights, int T, int D, float scale,
                               bool causal);

}  // namespace kernels
}  // namespace mha
