// The xsimd kernels. Matrix products run through the packed GEMM; softmax is a vector loop with
// a padded tail. Every reduction runs in an order that does not depend on the SIMD width (gemm.h,
// simd_sum.h), so the native builds (SSE4.1, or AVX2 without FMA) and the WASM build (SIMD128) give
// bit-identical results.
#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <vector>
#include <xsimd/xsimd.hpp>

#include "kernels/gemm.h"
#include "kernels/kernels.h"
#include "kernels/simd_exp.h"
#include "kernels/simd_sum.h"
#include "kernels/simd_transpose.h"

namespace mha {
namespace kernels {

namespace {
using Batch = xsimd::batch<float>;
constexpr int kWidth = static_cast<int>(Batch::size);
}  // namespace

// The three matrix products go through the packed GEMM (gemm.h). These entry points pack their
// right-hand side on each call; attention_forward packs the weights once instead.
void linear_forward_simd(float* out, const float* in, const float* weight, const float* bias, int T, int K, int N) {
  gemm_forward(out, N, in, K, pack_transposed(weight, N, K), bias, T, 1.0f, Triangle::none);
}

namespace {

// Rows [r0, r1) of one head's scores (past + T columns: the keys k_packed holds; row i is position
// past + i): q's rows · kᵀ · scale, -inf past row i's own position when causal.
void scores_rows(float* scores, const float* q, int ldq, const PackedMatrix& k_packed, int past, float scale, bool causal,
                 int r0, int r1) {
  const int keys = k_packed.n;
  gemm_forward(scores + static_cast<size_t>(r0) * keys, keys, q + static_cast<size_t>(r0) * ldq, ldq, k_packed, nullptr,
               r1 - r0, scale, causal ? Triangle::skip_upper : Triangle::none, past + r0);
  if (!causal) return;
  for (int i = r0; i < r1; ++i) {
    float* row = scores + static_cast<size_t>(i) * keys;
    std::fill(row + past + i + 1, row + keys, -std::numeric_limits<float>::infinity());
  }
}

// Rows [r0, r1) of one head's softmax, rows of `keys` entries (row i is position past + i).
void softmax_rows(float* weights, const float* scores, int keys, int past, bool causal, int r0, int r1) {
  for (int i = r0; i < r1; ++i) {
    const float* row = scores + static_cast<size_t>(i) * keys;
    float* out = weights + static_cast<size_t>(i) * keys;
    const int n = causal ? past + i + 1 : keys;  // masked entries are skipped, then set to exactly 0

    // pass 1: the row max, so exp never overflows
    const Batch max_b(max_of(row, n));

    // pass 2: exp(s - max), the tail through a padded batch so every entry uses the same exp; then
    // their sum in simd_sum.h's order, so that a wider build (AVX2) trains the same bits
    int j = 0;
    for (; j + kWidth <= n; j += kWidth) exp_batch(Batch::load_unaligned(row + j) - max_b).store_unaligned(out + j);
    if (j < n) {
      alignas(64) float tail[kWidth];
      std::fill(tail, tail + kWidth, -std::numeric_limits<float>::infinity());
      std::memcpy(tail, row + j, sizeof(float) * (n - j));
      exp_batch(Batch::load_aligned(tail) - max_b).store_aligned(tail);
      std::copy_n(tail, n - j, out + j);
    }
    const float sum = sum4(out, n);

    // pass 3: normalise
    const Batch sum_all(sum);
    j = 0;
    for (; j + kWidth <= n; j += kWidth) (Batch::load_unaligned(out + j) / sum_all).store_unaligned(out + j);
    for (; j < n; ++j) out[j] /= sum;
    for (j = n; j < keys; ++j) out[j] = 0.0f;
  }
}

// Rows [r0, r1) of one head's output: weights' rows · v, stopping at row i's own position when causal.
void weighted_sum_rows(float* out, int ldo, const float* weights, const PackedMatrix& v_packed, int past, bool causal,
                       int r0, int r1) {
  const int keys = v_packed.k;
  gemm_forward(out + static_cast<size_t>(r0) * ldo, ldo, weights + static_cast<size_t>(r0) * keys, keys, v_packed, nullptr,
               r1 - r0, 1.0f, causal ? Triangle::k_to_row : Triangle::none, past + r0);
}

// One head's Kᵀ and V, packed; kept so each head reuses the storage.
thread_local PackedMatrix k_packed, v_packed;

}  // namespace

void scores_forward_simd(float* scores, const float* q, const float* k, int T, int D, float scale, bool causal) {
  pack_transposed_into(k_packed, k, T, D);
  scores_rows(scores, q, D, k_packed, 0, scale, causal, 0, T);
}

void softmax_forward_simd(float* weights, const float* scores, int T, bool causal) {
  softmax_rows(weights, scores, T, 0, causal, 0, T);
}

void weighted_sum_forward_simd(float* out, const float* weights, const float* v, int T, int D, bool causal) {
  pack_rows_into(v_packed, v, T, D, D);
  weighted_sum_rows(out, D, weights, v_packed, 0, causal, 0, T);
}

// In float32 as transformers computes it: each product rounded, then the sum. The tail runs the same
// operations one float at a time, so every entry has the same bits whatever the SIMD width.
void rope_forward_simd(float* out, const float* x, const float* cos, const float* sin, int T, int D) {
  const int h = D / 2;
  for (int t = 0; t < T; ++t) {
    const float *a = x + static_cast<size_t>(t) * D, *b = a + h;
    const float *c = cos + static_cast<size_t>(t) * h, *s = sin + static_cast<size_t>(t) * h;
    float *lo = out + static_cast<size_t>(t) * D, *hi = lo + h;
    int i = 0;
    for (; i + kWidth <= h; i += kWidth) {
      const Batch av = Batch::load_unaligned(a + i), bv = Batch::load_unaligned(b + i);
      const Batch cv = Batch::load_unaligned(c + i), sv = Batch::load_unaligned(s + i);
      (av * cv - bv * sv).store_unaligned(lo + i);
      (bv * cv + av * sv).store_unaligned(hi + i);
    }
    for (; i < h; ++i) {
      const float ac = a[i] * c[i], bs = b[i] * s[i], bc = b[i] * c[i], as = a[i] * s[i];
      lo[i] = ac - bs;
      hi[i] = bc + as;
    }
  }
}

// The three steps one block of query rows at a time: the block's scores are still in cache for its
// softmax, and its weights for P·V, instead of each (T, T) matrix going out to memory and back
// twice. Every entry is computed as the three kernels above compute it, so the bits are the same.
void attend_head_forward_simd(float* scores, float* weights, float* out, const float* q, const float* k, const float* v,
                              int T, int D, float scale, bool causal) {
  attend_head_forward_strided_simd(scores, weights, out, D, q, D, k, D, v, D, T, 0, D, scale, causal);
}

// The keys and values of all past + T positions are packed once per call. (A decoding step of a
// cache's one query row reads them in place, every head at once: attend_step_simd below.)
void attend_head_forward_strided_simd(float* scores, float* weights, float* out, int ldo, const float* q, int ldq,
                                      const float* k, int ldk, const float* v, int ldv, int T, int past, int D,
                                      float scale, bool causal) {
  const int keys = past + T;
  pack_transposed_into(k_packed, k, keys, D, ldk);
  pack_rows_into(v_packed, v, keys, D, ldv);
  // ~64 KB of scores (and as much of weights) per block, whole micro-tiles of rows
  const int tile = gemm_tile_rows();
  const int block = std::max(tile, (16384 / std::max(keys, 1)) / tile * tile);
  for (int r0 = 0; r0 < T; r0 += block) {
    const int r1 = std::min(T, r0 + block);
    scores_rows(scores, q, ldq, k_packed, past, scale, causal, r0, r1);
    softmax_rows(weights, scores, keys, past, causal, r0, r1);
    weighted_sum_rows(out, ldo, weights, v_packed, past, causal, r0, r1);
  }
}

bool attends_step_in_place(int D) { return kWidth == 4 && D % 4 == 0; }

// Row j of the cache holds every K/V head's key side by side, so the keys are read row after row,
// each row once for all heads (four query heads a vector: their keys turned into lanes by 4 × 4
// transposes, q turned once), then the values the same way, each head's output summed where it lies.
// Each score is summed over d in order and each output over the keys in order, as the packed products
// sum them: the per-head kernel's bits.
void attend_step_simd(float* scores, float* weights, float* out, const float* q, const float* k, const float* v, int ld,
                      int heads, int group, int keys, int D, float scale, bool causal) {
  if constexpr (kWidth == 4) {
    const int quads = (heads + 3) / 4;
    const auto head = [&](int h) { return std::min(h, heads - 1); };  // lanes past the last head repeat it, unkept
    thread_local std::vector<float> q_lanes;                          // per quad of heads, per d: its heads' q[d]
    q_lanes.resize(static_cast<size_t>(quads) * D * 4);
    for (int b = 0; b < quads; ++b) {
      const float* rows[4];
      for (int l = 0; l < 4; ++l) rows[l] = q + static_cast<size_t>(head(4 * b + l)) * D;
      for (int d = 0; d < D; d += 4) {
        Quad col[4];
        transpose4_columns(rows, d, col);
        for (int i = 0; i < 4; ++i) col[i].store_unaligned(q_lanes.data() + (static_cast<size_t>(b) * D + d + i) * 4);
      }
    }
    for (int j = 0; j < keys; ++j)
      for (int b = 0; b < quads; ++b) {
        const float* rows[4];
        for (int l = 0; l < 4; ++l) rows[l] = k + static_cast<size_t>(j) * ld + static_cast<size_t>(head(4 * b + l) / group) * D;
        const float* lanes_q = q_lanes.data() + static_cast<size_t>(b) * D * 4;
        Quad acc(0.0f);
        for (int d = 0; d < D; d += 4) {
          Quad col[4];
          transpose4_columns(rows, d, col);
          for (int i = 0; i < 4; ++i) acc = xsimd::fma(Quad::load_unaligned(lanes_q + (d + i) * 4), col[i], acc);
        }
        if (scale != 1.0f) acc *= Quad(scale);
        alignas(16) float lanes[4];
        acc.store_aligned(lanes);
        for (int l = 0; l < 4 && 4 * b + l < heads; ++l) scores[static_cast<size_t>(4 * b + l) * keys + j] = lanes[l];
      }
    for (int h = 0; h < heads; ++h) {
      const size_t row = static_cast<size_t>(h) * keys;
      softmax_rows(weights + row, scores + row, keys, keys - 1, causal, 0, 1);
    }
    std::fill_n(out, static_cast<size_t>(heads) * D, 0.0f);
    for (int j = 0; j < keys; ++j)
      for (int h = 0; h < heads; ++h) {
        const Quad w(weights[static_cast<size_t>(h) * keys + j]);
        const float* value = v + static_cast<size_t>(j) * ld + static_cast<size_t>(h / group) * D;
        float* o = out + static_cast<size_t>(h) * D;
        for (int c = 0; c < D; c += 4)
          xsimd::fma(w, Quad::load_unaligned(value + c), Quad::load_unaligned(o + c)).store_unaligned(o + c);
      }
  } else {
    (void)scores, (void)weights, (void)out, (void)q, (void)k, (void)v, (void)ld, (void)heads, (void)group, (void)keys,
        (void)D, (void)scale, (void)causal;
    throw std::logic_error("internal: attend_step_simd runs at 4 lanes only (attends_step_in_place)");
  }
}

namespace {

// Scratch kept per thread, so a training step allocates nothing after the first.
thread_local std::vector<float> scratch_a, scratch_b, scratch_c;
thread_local PackedMatrix packed_b;

// dst += src, n floats, in a fixed order.
void add_into(float* dst, const float* src, size_t n) {
  size_t i = 0;
  for (; i + kWidth <= n; i += kWidth) (Batch::load_unaligned(dst + i) + Batch::load_unaligned(src + i)).store_unaligned(dst + i);
  for (; i < n; ++i) dst[i] += src[i];
}

// dst (cols, rows) += src (rows, cols)ᵀ
void add_transposed_into(float* dst, const float* src, int rows, int cols) {
  for (int c = 0; c < cols; ++c)
    for (int r = 0; r < rows; ++r) dst[static_cast<size_t>(c) * rows + r] += src[static_cast<size_t>(r) * cols + c];
}

// out (cols, rows) = in (rows, cols)ᵀ: 4 × 4 blocks through registers (four loads, eight shuffles,
// four stores instead of sixteen scattered stores), the edges one float at a time.
void transpose(float* out, const float* in, int rows, int cols) {
  const int rows4 = rows / 4 * 4, cols4 = cols / 4 * 4;
  for (int r = 0; r < rows4; r += 4)
    for (int c = 0; c < cols4; c += 4) {
      Quad row[4], col[4];
      for (int i = 0; i < 4; ++i) row[i] = Quad::load_unaligned(in + static_cast<size_t>(r + i) * cols + c);
      transpose4(row, col);
      for (int j = 0; j < 4; ++j) col[j].store_unaligned(out + static_cast<size_t>(c + j) * rows + r);
    }
  for (int r = 0; r < rows; ++r)
    for (int c = r < rows4 ? cols4 : 0; c < cols; ++c) out[static_cast<size_t>(c) * rows + r] = in[static_cast<size_t>(r) * cols + c];
}

float* sized(std::vector<float>& v, size_t n) {
  if (v.size() < n) v.resize(n);
  return v.data();
}

// dbias (N) += the column sums of m (T, N), each column summed over t in order from 0: a batch of
// columns at a time, so the T additions of one column are not one long chain of scalar adds.
void add_column_sums(float* dbias, const float* m, int T, int N) {
  thread_local std::vector<float> sums;
  float* acc = sized(sums, static_cast<size_t>(N));
  std::fill(acc, acc + N, 0.0f);
  for (int t = 0; t < T; ++t) {
    const float* row = m + static_cast<size_t>(t) * N;
    int n = 0;
    for (; n + kWidth <= N; n += kWidth) (Batch::load_unaligned(acc + n) + Batch::load_unaligned(row + n)).store_unaligned(acc + n);
    for (; n < N; ++n) acc[n] += row[n];
  }
  add_into(dbias, acc, static_cast<size_t>(N));
}

}  // namespace

// Both products go through the packed GEMM; each output is summed over its k in order, so the bits
// do not depend on the SIMD width.
void linear_backward_simd(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                          const float* weight, int T, int K, int N) {
  if (dinp) {  // (T, N) · (N, K)
    float* tmp = sized(scratch_a, static_cast<size_t>(T) * K);
    pack_rows_into(packed_b, weight, N, K, K);
    gemm_forward(tmp, K, dout, N, packed_b, nullptr, T, 1.0f, Triangle::none);
    add_into(dinp, tmp, static_cast<size_t>(T) * K);
  }
  // (N, T) · (T, K). inp is packed from its transpose: packing reads the source column by column,
  // and inp's columns are T floats apart (a cache line each), inpᵀ's rows are contiguous.
  float* dout_t = sized(scratch_b, static_cast<size_t>(N) * T);
  transpose(dout_t, dout, T, N);
  float* inp_t = sized(scratch_c, static_cast<size_t>(K) * T);
  transpose(inp_t, inp, T, K);
  pack_transposed_into(packed_b, inp_t, K, T);
  float* tmp = sized(scratch_a, static_cast<size_t>(N) * K);
  gemm_forward(tmp, K, dout_t, T, packed_b, nullptr, N, 1.0f, Triangle::none);
  add_into(dweight, tmp, static_cast<size_t>(N) * K);
  if (dbias) add_column_sums(dbias, dout, T, N);
}

// dv and dk are computed transposed, dvᵀ = doutᵀ · w and dkᵀ = scale · qᵀ · ds, so the (T, T)
// matrices are packed as they are instead of being transposed first; each entry is the same sum over
// the same k in the same order as wᵀ · dout and dsᵀ · q, so the bits are too.
void attend_head_backward_simd(float* dq, float* dk, float* dv, float* dscores, const float* dout, const float* q,
                               const float* k, const float* v, const float* weights, int T, int D, float scale,
                               bool causal) {
  const size_t TD = static_cast<size_t>(T) * D;
  float* tmp = sized(scratch_a, TD);
  float* transposed = sized(scratch_b, TD);
  // dw (T, T) = dout · vᵀ (above the diagonal unused when causal), into dscores
  pack_transposed_into(packed_b, v, T, D);
  gemm_forward(dscores, T, dout, D, packed_b, nullptr, T, 1.0f, causal ? Triangle::skip_upper : Triangle::none);
  // dv += wᵀ · dout, as dvᵀ (D, T) = doutᵀ · w
  transpose(transposed, dout, T, D);
  pack_rows_into(packed_b, weights, T, T, T);
  gemm_forward(tmp, T, transposed, T, packed_b, nullptr, D, 1.0f, Triangle::none);
  add_transposed_into(dv, tmp, D, T);
  // softmax backward, row by row: ds_ij = w_ij (dw_ij − Σ_j' w_ij' dw_ij')
  for (int i = 0; i < T; ++i) {
    const int n = causal ? i + 1 : T;
    float* ds = dscores + static_cast<size_t>(i) * T;
    const float* w = weights + static_cast<size_t>(i) * T;
    const float dot = dot4(w, ds, n);  // the same bits at every SIMD width
    const Batch dot_all(dot);
    int j = 0;
    for (; j + kWidth <= n; j += kWidth)
      (Batch::load_unaligned(w + j) * (Batch::load_unaligned(ds + j) - dot_all)).store_unaligned(ds + j);
    for (; j < n; ++j) ds[j] = w[j] * (ds[j] - dot);
    std::fill(ds + n, ds + T, 0.0f);
  }
  // dq += scale · ds · k
  pack_rows_into(packed_b, k, T, D, D);
  gemm_forward(tmp, D, dscores, T, packed_b, nullptr, T, scale, causal ? Triangle::k_to_row : Triangle::none);
  add_into(dq, tmp, TD);
  // dk += scale · dsᵀ · q, as dkᵀ (D, T) = scale · qᵀ · ds
  transpose(transposed, q, T, D);
  pack_rows_into(packed_b, dscores, T, T, T);
  gemm_forward(tmp, T, transposed, T, packed_b, nullptr, D, scale, Triangle::none);
  add_transposed_into(dk, tmp, D, T);
}

}  // namespace kernels
}  // namespace mha
