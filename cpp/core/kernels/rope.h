// Rotary position embeddings (RoPE) in Hugging Face's rotate_half convention: in each head, dimension
// i is paired with i + d_head/2 and the pair is turned by the angle t·θ_i at position t, with
// θ_i = base^(−2i/d_head), i < d_head/2. Turning q and k by their positions makes q·k depend on the
// positions only through their distance. (Meta's original code pairs 2i with 2i+1 instead; Hugging
// Face's conversion permutes W_Q's and W_K's rows so both give the same scores.)
#pragma once

#include <vector>

namespace mha {

// cos and sin of t·θ_i, row t = position, column i < D/2: (rows, D/2) each.
struct RopeTables {
  int rows = 0, D = 0;
  double base = 0;
  std::vector<float> cos, sin;
};

// The tables of positions 0 … T−1 (at least), computed once and kept per thread: a second call with
// the same D and base and no larger T reuses them. The angle is rounded to float32 as transformers'
// LlamaRotaryEmbedding rounds it; its cos and sin come from rope_sincos, not the C library, so the
// native and WebAssembly builds get the same bits. D is even.
const RopeTables& rope_tables(int T, int D, double base);

// base^(−2i/D) and (cos a, sin a), in double from + − × ÷ only (range reduction and series): the same
// bits on every IEEE platform, where std::cos and std::pow come from different libms. Exposed for tests.
double rope_theta(int i, int D, double base);
void rope_sincos(double a, double& cos_a, double& sin_a);

}  // namespace mha
