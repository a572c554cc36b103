// The heads' two layouts: (B, T, n·D), as the projections write them, and (B, n, T, D), head by head.
// Head h takes columns h·D … (h+1)·D−1 of every row: the heads split d_model, they do not copy it.
#pragma once

namespace mha {

// (B, T, n·D) -> (B, n, T, D)
void split_heads(float* out, const float* m, int B, int T, int n, int D);
// (B, n, T, D) -> (B, T, n·D)
void merge_heads(float* out, const float* heads, int B, int T, int n, int D);

}  // namespace mha
