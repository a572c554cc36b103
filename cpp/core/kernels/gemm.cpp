#include "kernels/gemm.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>
#include <vector>
#include <xsimd/xsimd.hpp>

#include "kernels/simd_transpose.h"

namespace mha {

namespace {

using Batch = xsimd::batch<float>;
constexpr int kWidth = static_cast<int>(Batch::size);
constexpr int kPanel = 2 * kWidth;  // columns per packed panel: two vectors per tile row
// Rows per micro-tile. Width 4 (SSE4.1, SIMD128: 16 registers, no FMA, so products need temporaries):
// 4 rows = 8 accumulators. Width 8 and up (AVX2 with FMA): 6 rows = 12 accumulators.
constexpr int kRows = kWidth >= 8 ? 6 : 4;
// k per pass: the A tile (kRows × 1024 floats, 16–24 KB) stays in L1 while the panel streams
// from L2. 256 at width 8 (to keep the panel in L1 too) was slower: with A/B runs interleaved,
// the AVX2 QKV projection at M took 6.3–6.5 ms against 5.5–5.8 ms with 1024.
constexpr int kBlockK = 1024;

// acc (R rows × P panels of kPanel columns) over k in [k0, k1). `a` is packed: for each k, the
// tile's kRows values side by side, so the R broadcasts read one pointer at fixed offsets. R and P
// are compile-time constants, so the accumulators live in registers. P > 1 (whole panels, each
// panel_stride floats after the last, their columns side by side in out) is for a single row, a
// decoding step's x · W: one row against one panel has only two sums to add into, each waiting on
// its last addition, where two panels give four and two streams of B to read at once. Each output
// is still summed over k in order, so P changes no bits.
template <int R, int P = 1>
void micro_tile(float* out, int ldo, const float* a, const float* panel, int k0, int k1, int valid_cols, bool first,
                bool last, float scale, const float* bias, size_t panel_stride = 0) {
  Batch acc[R][2 * P];
  if (first) {
    for (int r = 0; r < R; ++r)
      for (int j = 0; j < 2 * P; ++j) acc[r][j] = Batch(0.0f);
  } else if (valid_cols == kPanel) {  // continue the sums a previous k block stored
    for (int r = 0; r < R; ++r)
      for (int j = 0; j < 2 * P; ++j) acc[r][j] = Batch::load_unaligned(out + r * ldo + j * kWidth);
  } else {
    for (int r = 0; r < R; ++r) {
      alignas(64) float row[kPanel] = {};
      std::memcpy(row, out + r * ldo, sizeof(float) * valid_cols);
      acc[r][0] = Batch::load_aligned(row);
      acc[r][1] = Batch::load_aligned(row + kWidth);
    }
  }
  const float* p = panel + static_cast<size_t>(k0) * kPanel;
  for (int k = k0; k < k1; ++k, p += kPanel, a += kRows) {
    Batch b[2 * P];
    for (int q = 0; q < P; ++q) {
      b[2 * q] = Batch::load_unaligned(p + q * panel_stride);
      b[2 * q + 1] = Batch::load_unaligned(p + q * panel_stride + kWidth);
    }
    for (int r = 0; r < R; ++r) {
      const Batch av(a[r]);
      for (int j = 0; j < 2 * P; ++j) acc[r][j] = xsimd::fma(av, b[j], acc[r][j]);
    }
  }
  if (last) {
    alignas(64) float bias_row[kPanel] = {};
    const float* b = bias;  // a whole panel's bias is read in place, a partial one through the zero-padded row
    if (bias && valid_cols < kPanel) {
      std::memcpy(bias_row, bias, sizeof(float) * valid_cols);
      b = bias_row;
    }
    const Batch s(scale);
    for (int j = 0; j < 2 * P; ++j) {
      const Batch bias_j = b ? Batch::load_unaligned(b + j * kWidth) : Batch(0.0f);
      for (int r = 0; r < R; ++r) {
        if (scale != 1.0f) acc[r][j] *= s;
        if (bias) acc[r][j] += bias_j;
      }
    }
  }
  for (int r = 0; r < R; ++r) {
    if (valid_cols == kPanel) {
      for (int j = 0; j < 2 * P; ++j) acc[r][j].store_unaligned(out + r * ldo + j * kWidth);
    } else {
      alignas(64) float row[kPanel];
      acc[r][0].store_aligned(row);
      acc[r][1].store_aligned(row + kWidth);
      std::memcpy(out + r * ldo, row, sizeof(float) * valid_cols);
    }
  }
}

// One row x (a decoding step's x · W, its k values side by side) against S panels over all of k, for
// width 4, each panel read straight through: S read streams at once. A panel's row is half a cache
// line there. One panel at a time reached 28–30 GB/s in V8; two panels side by side (micro_tile<1, 2>,
// x read at the packed tile's stride of kRows floats) 20. Two panels half a matrix apart (the caller's
// pairs) took 2–3 % off a GPT-2-small decoding step against one at a time (bench-ab.js from each side),
// as two streams far apart read a 512 MB sum 5 % faster than one. Each output is still summed over k
// in order, then scaled, then biased.
template <int S>
[[maybe_unused]] void row_times_panels(float* const out[S], const float* x, const float* const panel[S], int k,
                                       int valid_cols, float scale, const float* const bias[S]) {
  Batch lo[S], hi[S];
  for (int s = 0; s < S; ++s) lo[s] = hi[s] = Batch(0.0f);
  for (int kk = 0; kk < k; ++kk) {
    const Batch xk(x[kk]);
    const size_t at = static_cast<size_t>(kk) * kPanel;
    for (int s = 0; s < S; ++s) {
      lo[s] = xsimd::fma(xk, Batch::load_unaligned(panel[s] + at), lo[s]);
      hi[s] = xsimd::fma(xk, Batch::load_unaligned(panel[s] + at + kWidth), hi[s]);
    }
  }
  for (int s = 0; s < S; ++s) {
    if (scale != 1.0f) lo[s] *= Batch(scale), hi[s] *= Batch(scale);
    if (valid_cols == kPanel) {  // a whole panel: bias and out in place (a call to memcpy per panel showed in profiles)
      if (bias[s]) lo[s] += Batch::load_unaligned(bias[s]), hi[s] += Batch::load_unaligned(bias[s] + kWidth);
      lo[s].store_unaligned(out[s]);
      hi[s].store_unaligned(out[s] + kWidth);
      continue;
    }
    alignas(64) float row[kPanel] = {};
    if (bias[s]) std::memcpy(row, bias[s], sizeof(float) * valid_cols);
    if (bias[s]) lo[s] += Batch::load_aligned(row), hi[s] += Batch::load_aligned(row + kWidth);
    lo[s].store_aligned(row);
    hi[s].store_aligned(row + kWidth);
    std::memcpy(out[s], row, sizeof(float) * valid_cols);
  }
}

// At 4 lanes (SSE4.1, SIMD128): dst[j·dst_stride + r] = src[r][k + j] for r, j < 4 (a null src[r]
// reads as zeros).
[[maybe_unused]] void transpose4_store(const float* const src[4], int k, float* dst, size_t dst_stride) {
  Quad col[4];
  transpose4_columns(src, k, col);
  for (int j = 0; j < 4; ++j) col[j].store_unaligned(dst + j * dst_stride);
}

// Rows [0, m) × k [k0, k1) of a into tiles of kRows rows, k-major within a tile, zero rows past m.
void pack_a_block(float* dst, const float* a, int lda, int m, int k0, int k1) {
  const int kb = k1 - k0, tiles = (m + kRows - 1) / kRows;
  for (int t = 0; t < tiles; ++t) {
    float* tile = dst + static_cast<size_t>(t) * kRows * kb;
    const float* src[kRows];
    for (int r = 0; r < kRows; ++r) src[r] = t * kRows + r < m ? a + static_cast<size_t>(t * kRows + r) * lda + k0 : nullptr;
    int k = 0;
    if constexpr (kRows == 4 && kWidth == 4)
      for (; k + 4 <= kb; k += 4) transpose4_store(src, k, tile + k * 4, 4);
    for (; k < kb; ++k)
      for (int r = 0; r < kRows; ++r) tile[k * kRows + r] = src[r] ? src[r][k] : 0.0f;
  }
}

size_t tiled_rows(int m) { return static_cast<size_t>((m + kRows - 1) / kRows) * kRows; }

using TileFn = void (*)(float*, int, const float*, const float*, int, int, int, bool, bool, float, const float*, size_t);
template <int... R>
constexpr std::array<TileFn, sizeof...(R) + 1> tile_table(std::integer_sequence<int, R...>) {
  return {nullptr, micro_tile<R + 1>...};
}
constexpr auto kTiles = tile_table(std::make_integer_sequence<int, kRows>{});  // kTiles[rows]: rows 1 … kRows

}  // namespace

int gemm_panel_width() { return kPanel; }

int gemm_tile_rows() { return kRows; }

// b sized for a (k, n) matrix in panels of kPanel columns, the padding past n zero (pack_columns
// writes every other lane).
static void reset_packed(PackedMatrix& b, int k, int n) {
  b.k = k;
  b.n = n;
  const int panels = (n + kPanel - 1) / kPanel;
  b.data.resize(static_cast<size_t>(panels) * kPanel * k);
  if (n % kPanel == 0) return;
  float* last = b.data.data() + static_cast<size_t>(panels - 1) * kPanel * k;
  for (int kk = 0; kk < k; ++kk) std::fill(last + kk * kPanel + n % kPanel, last + (kk + 1) * kPanel, 0.0f);
}

// Columns first … first + n - 1 of b: B[kk][first + c] = src[kk·k_stride + c·n_stride].
static void pack_columns(PackedMatrix& b, int first, const float* src, int n, size_t k_stride, size_t n_stride) {
  int c = 0;
  if (n_stride == 1 && first % kPanel == 0) {  // B's rows lie in src: a panel's row is one copy
    for (; c + kPanel <= n; c += kPanel) {
      float* panel = b.data.data() + static_cast<size_t>((first + c) / kPanel) * kPanel * b.k;
      for (int kk = 0; kk < b.k; ++kk) std::copy_n(src + kk * k_stride + c, kPanel, panel + static_cast<size_t>(kk) * kPanel);
    }
  } else if constexpr (kWidth == 4) {
    if (k_stride == 1 && first % 4 == 0)  // B's columns lie in src (Kᵀ, Wᵀ): 4 × 4 transposes
      for (; c + 4 <= n; c += 4) {
        const int col = first + c;
        float* lane = b.data.data() + static_cast<size_t>(col / kPanel) * kPanel * b.k + col % kPanel;
        const float* columns[4] = {src + c * n_stride, src + (c + 1) * n_stride, src + (c + 2) * n_stride,
                                   src + (c + 3) * n_stride};
        int kk = 0;
        for (; kk + 4 <= b.k; kk += 4) transpose4_store(columns, kk, lane + static_cast<size_t>(kk) * kPanel, kPanel);
        for (; kk < b.k; ++kk)
          for (int j = 0; j < 4; ++j) lane[static_cast<size_t>(kk) * kPanel + j] = columns[j][kk];
      }
  }
  for (; c < n; ++c) {
    const int col = first + c;
    float* lane = b.data.data() + static_cast<size_t>(col / kPanel) * kPanel * b.k + col % kPanel;
    const float* column = src + static_cast<size_t>(c) * n_stride;
    for (int kk = 0; kk < b.k; ++kk) lane[static_cast<size_t>(kk) * kPanel] = column[kk * k_stride];
  }
}

static void pack_strided(PackedMatrix& b, const float* src, int k, int n, size_t k_stride, size_t n_stride) {
  reset_packed(b, k, n);
  pack_columns(b, 0, src, n, k_stride, n_stride);
}

void pack_transposed_into(PackedMatrix& b, const float* w, int n, int k) { pack_transposed_into(b, w, n, k, k); }

void pack_transposed_into(PackedMatrix& b, const float* w, int n, int k, int ldw) {
  pack_strided(b, w, k, n, 1, static_cast<size_t>(ldw));
}

void pack_rows_into(PackedMatrix& b, const float* src, int k, int n, int ldb) {
  pack_strided(b, src, k, n, static_cast<size_t>(ldb), 1);
}

PackedMatrix pack_transposed(const float* w, int n, int k) {
  PackedMatrix b;
  pack_transposed_into(b, w, n, k);
  return b;
}

PackedMatrix pack_transposed_stacked(const std::vector<std::pair<const float*, int>>& parts, int k) {
  int n = 0;
  for (const auto& part : parts) n += part.second;
  PackedMatrix b;
  reset_packed(b, k, n);
  int first = 0;
  for (const auto& [w, rows] : parts) {
    pack_columns(b, first, w, rows, 1, static_cast<size_t>(k));
    first += rows;
  }
  return b;
}

PackedMatrix pack_rows(const float* src, int k, int n, int ldb) {
  PackedMatrix b;
  pack_rows_into(b, src, k, n, ldb);
  return b;
}

void gemm_forward(float* out, int ldo, const float* a, int lda, const PackedMatrix& b, const float* bias, int m,
                  float scale, Triangle triangle, int first_row) {
  gemm_forward_columns(out, ldo, a, lda, b, bias, m, scale, triangle, 0, b.n, first_row);
}

void pack_lhs_into(PackedLhs& out, const float* a, int lda, int m, int k) {
  out.m = m;
  out.k = k;
  // Grown, never shrunk: a decoding step's products alternate between k = d_model and 4·d_model, and
  // growing back each time zero-filled the difference (every value is written below).
  const size_t size = tiled_rows(m) * static_cast<size_t>(k);
  if (out.data.size() < size) out.data.resize(size);
  // k block by k block, each block's tiles together: block k0 starts at tiled_rows(m) · k0
  for (int k0 = 0; k0 < k; k0 += kBlockK)
    pack_a_block(out.data.data() + tiled_rows(m) * k0, a, lda, m, k0, std::min(k, k0 + kBlockK));
}

// out = a · B' for B' = rows [k_first, k_first + a.k) of B: each panel's rows lie k_first · kPanel
// floats into it, b.k · kPanel apart from the next panel's.
static void product_of_rows(float* out, int ldo, const PackedLhs& a, const PackedMatrix& b, int k_first, const float* bias,
                            float scale, Triangle triangle, int col_begin, int col_end, int first_row) {
  const int k = a.k, m = a.m;
  if constexpr (kWidth == 4) {
    if (m == 1 && triangle == Triangle::none && k > 0) {
      thread_local std::vector<float> x;  // the row, out of its tile (where it lies kRows floats apart)
      x.resize(static_cast<size_t>(k));
      for (int kk = 0; kk < k; ++kk) x[static_cast<size_t>(kk)] = a.data[static_cast<size_t>(kk) * kRows];
      // Panel p's output, its panel and its bias: panel p starts p · b.k · kPanel floats in, column
      // col0 lands at out[col0 - col_begin]
      const auto out_of = [&](int p) { return out + (p * kPanel - col_begin); };
      const auto panel_of = [&](int p) { return b.data.data() + (static_cast<size_t>(p) * b.k + k_first) * kPanel; };
      const auto bias_of = [&](int p) { return bias ? bias + (p * kPanel - col_begin) : nullptr; };
      const int first = col_begin / kPanel, whole = col_end / kPanel - first, pairs = whole / 2;
      for (int i = 0; i < pairs; ++i) {  // panel i with panel pairs + i: two streams half the matrix apart
        const int p = first + i, q = first + pairs + i;
        float* const outs[2] = {out_of(p), out_of(q)};
        const float* const panels[2] = {panel_of(p), panel_of(q)};
        const float* const biases[2] = {bias_of(p), bias_of(q)};
        row_times_panels<2>(outs, x.data(), panels, k, kPanel, scale, biases);
      }
      for (int p = first + 2 * pairs; p * kPanel < col_end; ++p) {
        float* const outs[1] = {out_of(p)};
        const float* const panels[1] = {panel_of(p)};
        const float* const biases[1] = {bias_of(p)};
        row_times_panels<1>(outs, x.data(), panels, k, std::min(kPanel, col_end - p * kPanel), scale, biases);
      }
      return;
    }
  }
  for (int k0 = 0; k0 < std::max(k, 1); k0 += kBlockK) {
    const int k1 = std::min(k, k0 + kBlockK);
    const float* a_packed = a.data.data() + tiled_rows(m) * k0;
    for (int p = col_begin / kPanel; p * kPanel < col_end; ++p) {
      const int col0 = p * kPanel, cols = std::min(kPanel, col_end - col0);
      const float* panel = b.data.data() + (static_cast<size_t>(p) * b.k + k_first) * kPanel;
      if (kWidth >= 8 && m == 1 && triangle == Triangle::none && col0 + 2 * kPanel <= col_end) {  // one row: two whole panels at once
        micro_tile<1, 2>(out + (col0 - col_begin), ldo, a_packed, panel, k0, k1, kPanel, k0 == 0, k1 == k, scale,
                         bias ? bias + (col0 - col_begin) : nullptr, static_cast<size_t>(kPanel) * b.k);
        ++p;
        continue;
      }
      for (int r0 = 0; r0 < m; r0 += kRows) {
        const int rows = std::min(kRows, m - r0);
        const int last_row = first_row + r0 + rows - 1;  // in the whole product, for the triangle
        if (triangle == Triangle::skip_upper && col0 > last_row) continue;  // all above the diagonal
        // k_to_row: the tile's rows need k ≤ last_row only; the weights past the diagonal are 0
        const int tile_k = triangle == Triangle::k_to_row ? std::min(k, last_row + 1) : k;
        if (k0 > 0 && k0 >= tile_k) continue;
        const int tile_k1 = std::min(k1, tile_k);
        // column col of B lands at out[col - col_begin]; bias[0] belongs to col_begin
        // a whole tile calls its kernel directly (inlined), a last short one through the table
        (rows == kRows ? micro_tile<kRows> : kTiles[rows])(
            out + static_cast<size_t>(r0) * ldo + (col0 - col_begin), ldo, a_packed + static_cast<size_t>(r0) * (k1 - k0),
            panel, k0, tile_k1, cols, k0 == 0, tile_k1 == tile_k, scale, bias ? bias + (col0 - col_begin) : nullptr, 0);
      }
    }
  }
}

void gemm_forward_packed(float* out, int ldo, const PackedLhs& a, const PackedMatrix& b, const float* bias, float scale,
                         Triangle triangle, int col_begin, int col_end, int first_row) {
  product_of_rows(out, ldo, a, b, 0, bias, scale, triangle, col_begin, col_end, first_row);
}

void gemm_forward_rows(float* out, int ldo, const float* a, int lda, const PackedMatrix& b, int k_first, int k_count, int m) {
  thread_local PackedLhs packed;
  pack_lhs_into(packed, a, lda, m, k_count);
  product_of_rows(out, ldo, packed, b, k_first, nullptr, 1.0f, Triangle::none, 0, b.n, 0);
}

void gemm_forward_columns(float* out, int ldo, const float* a, int lda, const PackedMatrix& b, const float* bias,
                          int m, float scale, Triangle triangle, int col_begin, int col_end, int first_row) {
  // Kept between calls (one per thread), so a steady stream of products allocates nothing.
  thread_local PackedLhs packed;
  pack_lhs_into(packed, a, lda, m, b.k);
  gemm_forward_packed(out, ldo, packed, b, bias, scale, triangle, col_begin, col_end, first_row);
}

PackedMatrix packed_zeros(int k, int n) {
  PackedMatrix b;
  reset_packed(b, k, n);  // a new matrix: every value zero, not only the padding
  return b;
}

// B[kk][col] lies in panel col / kPanel, row kk of it, lane col % kPanel.
static size_t packed_index(const PackedMatrix& b, int kk, int col) {
  return static_cast<size_t>(col / kPanel) * kPanel * b.k + static_cast<size_t>(kk) * kPanel + col % kPanel;
}

void packed_set_row(PackedMatrix& b, int kk, int col, const float* values, int count) {
  while (count > 0) {  // a run within one panel's row is contiguous
    const int run = std::min(count, kPanel - col % kPanel);
    std::memcpy(b.data.data() + packed_index(b, kk, col), values, sizeof(float) * run);
    col += run, values += run, count -= run;
  }
}

void packed_set_column(PackedMatrix& b, int col, int kk, const float* values, int count) {
  float* lane = b.data.data() + packed_index(b, kk, col);
  for (int i = 0; i < count; ++i) lane[static_cast<size_t>(i) * kPanel] = values[i];
}

void packed_get_column(const PackedMatrix& b, int col, float* out) {
  const float* lane = b.data.data() + packed_index(b, 0, col);
  for (int kk = 0; kk < b.k; ++kk) out[kk] = lane[static_cast<size_t>(kk) * kPanel];
}

}  // namespace mha
