// Every kernel of one path in one table, so the forward and the backward read as one sequence of
// ops and run on either path: the scalar oracle (textbook loops in double) or xsimd.
#pragma once

#include "kernels/gelu.h"
#include "kernels/kernels.h"
#include "kernels/layernorm.h"

namespace mha {

struct KernelTable {
  decltype(&kernels::linear_forward_simd) linear;
  decltype(&kernels::linear_backward_simd) linear_backward;
  decltype(&kernels::attend_head_forward_strided_simd) attend_head;
  decltype(&kernels::attend_head_backward_simd) attend_head_backward;
  decltype(&kernels::scores_forward_simd) scores;
  decltype(&kernels::weighted_sum_forward_simd) weighted_sum;
  decltype(&kernels::rope_forward_simd) rope;
  decltype(&kernels::layernorm_forward_simd) layernorm;
  decltype(&kernels::layernorm_backward_simd) layernorm_backward;
  decltype(&kernels::gelu_forward_simd) gelu;
  decltype(&kernels::gelu_backward_simd) gelu_backward;
};

inline const KernelTable& kernel_table(KernelPath path) {
  using namespace kernels;
  static const KernelTable simd = {linear_forward_simd,     linear_backward_simd,      attend_head_forward_strided_simd,
                                   attend_head_backward_simd, scores_forward_simd,     weighted_sum_forward_simd,
                                   rope_forward_simd,       layernorm_forward_simd,    layernorm_backward_simd,
                                   gelu_forward_simd,       gelu_backward_simd};
#ifdef __EMSCRIPTEN__
  // Nothing in the WebAssembly module asks for the oracle (the native tests check the SIMD path
  // against it, and the module against the native core bit for bit): its 10 KB stay out of the widget.
  (void)path;
  return simd;
#else
  static const KernelTable scalar = {linear_forward_scalar,   linear_backward_scalar,      attend_head_forward_strided_scalar,
                                     attend_head_backward_scalar, scores_forward_scalar, weighted_sum_forward_scalar,
                                     rope_forward_scalar,     layernorm_forward_scalar,    layernorm_backward_scalar,
                                     gelu_forward_scalar,     gelu_backward_scalar};
  return path == KernelPath::scalar ? scalar : simd;
#endif
}

}  // namespace mha
