// The one matrix-product kernel behind the projections, Q·Kᵀ and P·V: B is packed once into
// panels of gemm_panel_width() columns (k-major, zero-padded), and a register-tiled micro-kernel
// computes MR rows × one panel with the k loop innermost, so each load of the panel feeds MR
// multiply-adds. Every output is summed over k in order, one k at a time: the result does not
// depend on the SIMD width, so 4-wide native and WASM builds agree bit for bit.
#pragma once

#include <utility>
#include <vector>

namespace mha {

int gemm_panel_width();  // 2 SIMD vectors: 8 floats for SSE4.1 / WASM SIMD128, 16 for AVX2
int gemm_tile_rows();    // rows per micro-tile: 4 at width 4, 6 at width 8 and up

struct PackedMatrix {
  int k = 0, n = 0;         // B is (k, n)
  std::vector<float> data;  // panels of (k, panel width), zero-padded past n
};

// B = wᵀ for a row-major w of shape (n, k): the layout of nn.Linear's weight (y = x·Wᵀ + b).
PackedMatrix pack_transposed(const float* w, int n, int k);
// B = [w_1; w_2; …]ᵀ for row-major parts w_i of shape (rows_i, k) stacked one under the other (the
// fused Q, K, V projection), without building the stacked copy. parts: {w_i, rows_i}.
PackedMatrix pack_transposed_stacked(const std::vector<std::pair<const float*, int>>& parts, int k);
// B = b for a row-major b of shape (k, n) with row stride ldb.
PackedMatrix pack_rows(const float* b, int k, int n, int ldb);
// The same into an existing matrix, reusing its storage (per-head K and V on every run).
void pack_transposed_into(PackedMatrix& out, const float* w, int n, int k);
void pack_transposed_into(PackedMatrix& out, const float* w, int n, int k, int ldw);  // w's rows ldw apart
void pack_rows_into(PackedMatrix& out, const float* b, int k, int n, int ldb);

enum class Triangle {
  none,
  skip_upper,  // outputs with column > row are not needed (causal scores): whole panels are skipped
  k_to_row,    // row m only sums k ≤ m (causal P·V, where the weights past the diagonal are 0)
};

// A (m, k) packed into the micro-kernel's row tiles once, for several products with the same
// left-hand side (Q, K and V from x, each into its own tensor).
struct PackedLhs {
  int m = 0, k = 0;
  std::vector<float> data;  // at least m's tiles × k floats: kept at its largest, so reuse never refills it
};
void pack_lhs_into(PackedLhs& out, const float* a, int lda, int m, int k);

// out (m, n) with row stride ldo = scale · (a (m, k) with row stride lda · B) + bias (n, may be null).
// With Triangle::skip_upper, entries above the diagonal are left unspecified. first_row: the index
// of a's first row in a larger product computed in row blocks, so the triangle falls where it would.
void gemm_forward(float* out, int ldo, const float* a, int lda, const PackedMatrix& b, const float* bias, int m,
                  float scale, Triangle triangle, int first_row = 0);
// The same for columns [col_begin, col_end) of B only, written to out's columns 0 … (their count).
// col_begin must be a multiple of gemm_panel_width(); bias is indexed from col_begin.
void gemm_forward_columns(float* out, int ldo, const float* a, int lda, const PackedMatrix& b, const float* bias,
                          int m, float scale, Triangle triangle, int col_begin, int col_end, int first_row = 0);
// The same from an A packed by pack_lhs_into (its m rows; a.k == b.k).
void gemm_forward_packed(float* out, int ldo, const PackedLhs& a, const PackedMatrix& b, const float* bias, float scale,
                         Triangle triangle, int col_begin, int col_end, int first_row = 0);

// out (m, b.n) with row stride ldo = a (m, k_count) with row stride lda · rows [k_first, k_first + k_count)
// of B: one head's share of the output projection (its d_head rows of W_Oᵀ) without a copy of them.
void gemm_forward_rows(float* out, int ldo, const float* a, int lda, const PackedMatrix& b, int k_first, int k_count, int m);

// A packed matrix read and written in B's own (k, n) coordinates, for code that must not know the
// panels: a model keeps each weight matrix only packed (weights.h's PackedModel), so the loader
// writes the file's values straight into it and the scalar path and the accessors read them back.
PackedMatrix packed_zeros(int k, int n);  // B = 0, (k, n)
// B[kk][col … col + count) = values.
void packed_set_row(PackedMatrix& b, int kk, int col, const float* values, int count);
// B[kk … kk + count)[col] = values.
void packed_set_column(PackedMatrix& b, int col, int kk, const float* values, int count);
// out (b.k) = B[·][col]: for B = wᵀ, row `col` of w (the inverse of pack_transposed, one row).
void packed_get_column(const PackedMatrix& b, int col, float* out);

}  // namespace mha
