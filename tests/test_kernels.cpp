// Map of this file:
//   exp_batch     — accuracy against std::exp, exact 0 for -inf and very negative inputs
//   each kernel   — the xsimd version equals the scalar oracle on sizes around the SIMD width
//                   (1, width-1, width, width+1, …) so every vector loop and every tail runs
//   attend_head   — the row-blocked head equals the three kernels bit for bit, and the oracle
//   attend_head after past positions — a KV cache's query rows equal the whole run's last rows
//   softmax       — causal rows, -inf free rows, large magnitudes that would overflow a naive exp
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "base/tensor.h"
#include "kernels/gemm.h"
#include "kernels/kernels.h"
#include "kernels/simd_exp.h"
#include "test_helpers.h"

using mha::Tensor;
using mha_test::check_close;
using mha_test::kSizes;
using mha_test::kWidth;
using mha_test::random_tensor;

// Every run's overflow check reads its tensors through first_non_finite: a SIMD sum of v − v over each
// 1024-value chunk, then a scalar tail. NaN and ±∞ anywhere (first lane, last, tail, a later chunk)
// must be found at their first index, and no finite value (±FLT_MAX, subnormals, −0) reported.
TEST_CASE("first_non_finite: the first NaN or infinity at any index of any length; finite extremes pass") {
  const float bad_values[] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                              -std::numeric_limits<float>::infinity()};
  for (size_t count : {size_t{0}, size_t{1}, size_t{7}, size_t{8}, size_t{9}, size_t{1023}, size_t{1024}, size_t{1025}, size_t{3001}}) {
    CAPTURE(count);
    std::vector<float> v(count);
    for (size_t i = 0; i < count; ++i)  // finite extremes, none of which may read as bad
      v[i] = i % 4 == 0 ? std::numeric_limits<float>::max() : i % 4 == 1 ? -std::numeric_limits<float>::max()
             : i % 4 == 2 ? std::numeric_limits<float>::denorm_min() : -0.0f;
    CHECK(mha::first_non_finite(v.data(), count) == count);
    for (size_t at : {size_t{0}, size_t{3}, size_t{7}, size_t{8}, size_t{1023}, size_t{1024}, size_t{2050}, count - 1}) {
      if (at >= count) continue;
      for (float bad : bad_values) {
        CAPTURE(at);
        std::vector<float> w = v;
        w[at] = bad;
        if (at + 5 < count) w[at + 5] = bad_values[0];  // a later one does not hide the first
        CHECK(mha::first_non_finite(w.data(), count) == at);
      }
    }
  }
}

TEST_CASE("exp_batch is within 2 ulp of std::exp and exactly 0 for masked entries") {
  double worst = 0;
  for (float x = -87.0f; x <= 0.0f; x += 0.0137f) {
    alignas(64) float in[kWidth], out[kWidth];
    for (int i = 0; i < kWidth; ++i) in[i] = x - 0.001f * i;
    mha::exp_batch(xsimd::batch<float>::load_aligned(in)).store_aligned(out);
    for (int i = 0; i < kWidth; ++i) {
      const double ref = std::exp(static_cast<double>(in[i]));
      worst = std::max(worst, std::fabs(out[i] - ref) / ref);
    }
  }
  CHECK(worst < 2.5e-7);

  alignas(64) float in[kWidth], out[kWidth];
  for (int i = 0; i < kWidth; ++i) in[i] = i % 2 ? -std::numeric_limits<float>::infinity() : -1000.0f;
  mha::exp_batch(xsimd::batch<float>::load_aligned(in)).store_aligned(out);
  for (int i = 0; i < kWidth; ++i) CHECK(out[i] == 0.0f);
}

// The GEMM sums each output over k in order, one product at a time, then adds the bias (gemm.h): the
// same bits as that float loop, at every SIMD width; and within float summation's error bound of the
// exact sum (the double oracle), (K + 1) · 2⁻²⁴ · (Σ |x·w| + |b|), whatever the terms cancel to
// (a bound relative to the largest output fails where they do: one output of −0.035 from terms of ±1).
TEST_CASE("linear_forward: SIMD is the float sum in k order, within its error bound of the scalar oracle, on every tail") {
  for (int T : {1, 3, 5}) {
    for (int K : kSizes) {
      for (int N : {1, 3, 4, 5, 9}) {
        CAPTURE(T);
        CAPTURE(K);
        CAPTURE(N);
        const Tensor x = random_tensor({T, K}, 1), w = random_tensor({N, K}, 2), b = random_tensor({N}, 3);
        for (const float* bias : {b.ptr(), static_cast<const float*>(nullptr)}) {
          CAPTURE(bias != nullptr);
          Tensor simd({T, N}), exact({T, N});
          mha::kernels::linear_forward_simd(simd.ptr(), x.ptr(), w.ptr(), bias, T, K, N);
          mha::kernels::linear_forward_scalar(exact.ptr(), x.ptr(), w.ptr(), bias, T, K, N);
          for (int t = 0; t < T; ++t)
            for (int n = 0; n < N; ++n) {
              float in_order = 0.0f;
              double magnitude = bias ? std::fabs(bias[n]) : 0.0;
              for (int k = 0; k < K; ++k) {
                const float product = x.data[t * K + k] * w.data[n * K + k];
                in_order = in_order + product;
                magnitude += std::fabs(product);
              }
              if (bias) in_order = in_order + bias[n];
              const float got = simd.data[t * N + n];
              CHECK(got == in_order);
              CHECK(std::fabs(got - exact.data[t * N + n]) <= (K + 1) * std::ldexp(magnitude, -24));
            }
        }
      }
    }
  }
}

TEST_CASE("scores, softmax and weighted sum: SIMD equals the scalar oracle") {
  for (bool causal : {false, true}) {
    for (int T : {1, 2, kWidth - 1, kWidth, kWidth + 1, 11}) {
      for (int D : kSizes) {
        CAPTURE(causal);
        CAPTURE(T);
        CAPTURE(D);
        const Tensor q = random_tensor({T, D}, 4, 2.0f), k = random_tensor({T, D}, 5, 2.0f),
                     v = random_tensor({T, D}, 6);
        const float scale = 1.0f / std::sqrt(static_cast<float>(D));
        Tensor s_simd({T, T}), s_scalar({T, T}), p_simd({T, T}), p_scalar({T, T}), o_simd({T, D}), o_scalar({T, D});
        mha::kernels::scores_forward_simd(s_simd.ptr(), q.ptr(), k.ptr(), T, D, scale, causal);
        mha::kernels::scores_forward_scalar(s_scalar.ptr(), q.ptr(), k.ptr(), T, D, scale, causal);
        check_close(s_simd, s_scalar, 1e-6, "scores");  // also checks the -inf positions match

        mha::kernels::softmax_forward_simd(p_simd.ptr(), s_scalar.ptr(), T, causal);
        mha::kernels::softmax_forward_scalar(p_scalar.ptr(), s_scalar.ptr(), T, causal);
        check_close(p_simd, p_scalar, 1e-6, "softmax");

        mha::kernels::weighted_sum_forward_simd(o_simd.ptr(), p_scalar.ptr(), v.ptr(), T, D, causal);
        mha::kernels::weighted_sum_forward_scalar(o_scalar.ptr(), p_scalar.ptr(), v.ptr(), T, D, causal);
        check_close(o_simd, o_scalar, 1e-6, "weighted sum");
      }
    }
  }
}

// The GEMM under every kernel: A packed once and shared by products over column ranges (Q, K, V from
// x), k past one k block (1024, so A is packed in two blocks), rows that are not whole micro-tiles.
TEST_CASE("gemm: a packed A shared by column ranges gives one product's bits; k beyond a block is summed in order") {
  for (int m : {1, 5, 13}) {
    for (int k : {3, 64, 1100}) {
      CAPTURE(m);
      CAPTURE(k);
      const int panel = mha::gemm_panel_width(), n = 3 * panel + 5;
      const Tensor a = random_tensor({m, k}, 21), w = random_tensor({n, k}, 22), bias = random_tensor({n}, 23);
      const mha::PackedMatrix b = mha::pack_transposed(w.ptr(), n, k);
      Tensor whole({m, n});
      mha::gemm_forward(whole.ptr(), n, a.ptr(), k, b, bias.ptr(), m, 1.0f, mha::Triangle::none);
      Tensor reference({m, n});  // y = a·wᵀ + bias, summed over k in order as the kernel does
      for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) {
          float sum = 0.0f;
          for (int kk = 0; kk < k; ++kk) sum += a.data[i * k + kk] * w.data[j * k + kk];
          reference.data[i * n + j] = sum + bias.data[j];
        }
      check_close(whole, reference, 1e-5, "gemm");
      mha::PackedLhs packed;
      mha::pack_lhs_into(packed, a.ptr(), k, m, k);
      Tensor pieces({m, n});
      for (int c0 : {0, panel, 3 * panel}) {
        const int c1 = c0 == 3 * panel ? n : c0 + (c0 == 0 ? panel : 2 * panel);
        mha::gemm_forward_packed(pieces.ptr() + c0, n, packed, b, bias.ptr() + c0, 1.0f, mha::Triangle::none, c0, c1);
      }
      CHECK(pieces.data == whole.data);
    }
  }
}

// A decoding step multiplies one row: two whole panels at a time (gemm.cpp). Each output must still
// be the sum the same row gets inside a product of many rows, so a cached step matches a whole run.
TEST_CASE("gemm: one row against two panels at a time gives that row's bits in a product of many rows") {
  for (int k : {5, 64, 1100}) {
    for (int n : {1, 2 * mha::gemm_panel_width(), 5 * mha::gemm_panel_width() + 3}) {
      CAPTURE(k);
      CAPTURE(n);
      const Tensor a = random_tensor({7, k}, 31), w = random_tensor({n, k}, 32), bias = random_tensor({n}, 33);
      const mha::PackedMatrix b = mha::pack_transposed(w.ptr(), n, k);
      Tensor many({7, n}), one({1, n});
      mha::gemm_forward(many.ptr(), n, a.ptr(), k, b, bias.ptr(), 7, 0.5f, mha::Triangle::none);
      for (int row : {0, 6}) {
        mha::gemm_forward(one.ptr(), n, a.ptr() + static_cast<size_t>(row) * k, k, b, bias.ptr(), 1, 0.5f, mha::Triangle::none);
        for (int j = 0; j < n; ++j) CHECK(one.data[j] == many.data[static_cast<size_t>(row) * n + j]);
      }
    }
  }
}

// attend_head runs the three kernels one block of query rows at a time (16384 / T rows, whole
// micro-tiles): T = 130 and 300 have several blocks and a short last one.
TEST_CASE("attend_head: SIMD gives the three SIMD kernels' bits in any row blocking, and the scalar oracle's values") {
  for (bool causal : {false, true}) {
    for (int T : {1, 7, 130, 300}) {
      for (int D : {kWidth + 1, 16}) {
        CAPTURE(causal);
        CAPTURE(T);
        CAPTURE(D);
        const Tensor q = random_tensor({T, D}, 7, 2.0f), k = random_tensor({T, D}, 8, 2.0f), v = random_tensor({T, D}, 9);
        const float scale = 1.0f / std::sqrt(static_cast<float>(D));
        Tensor s_whole({T, T}), p_whole({T, T}), o_whole({T, D});
        mha::kernels::scores_forward_simd(s_whole.ptr(), q.ptr(), k.ptr(), T, D, scale, causal);
        mha::kernels::softmax_forward_simd(p_whole.ptr(), s_whole.ptr(), T, causal);
        mha::kernels::weighted_sum_forward_simd(o_whole.ptr(), p_whole.ptr(), v.ptr(), T, D, causal);

        Tensor s({T, T}), p({T, T}), o({T, D});
        mha::kernels::attend_head_forward_simd(s.ptr(), p.ptr(), o.ptr(), q.ptr(), k.ptr(), v.ptr(), T, D, scale, causal);
        CHECK(s.data == s_whole.data);
        CHECK(p.data == p_whole.data);
        CHECK(o.data == o_whole.data);

        Tensor s_scalar({T, T}), p_scalar({T, T}), o_scalar({T, D});
        mha::kernels::attend_head_forward_scalar(s_scalar.ptr(), p_scalar.ptr(), o_scalar.ptr(), q.ptr(), k.ptr(),
                                                 v.ptr(), T, D, scale, causal);
        check_close(s, s_scalar, 1e-6, "scores");
        check_close(p, p_scalar, 1e-5, "weights");
        check_close(o, o_scalar, 1e-5, "head_out");
      }
    }
  }
}

// The heads as attention_forward reads them: head h of a (T, n·D) q, k and v (rows n·D apart),
// written into its columns of a (T, n·D) concat. Odd widths reach every packing tail.
TEST_CASE("attend_head_strided: a head read out of q, k, v in place equals the contiguous head, bit for bit") {
  for (bool causal : {false, true}) {
    for (int T : {1, 5, 9, 130}) {
      for (int D : {3, kWidth + 1, 16}) {
        const int n = 3, ld = n * D;
        CAPTURE(causal);
        CAPTURE(T);
        CAPTURE(D);
        const Tensor q = random_tensor({T, ld}, 17, 2.0f), k = random_tensor({T, ld}, 18, 2.0f), v = random_tensor({T, ld}, 19);
        const float scale = 1.0f / std::sqrt(static_cast<float>(D));
        for (int h = 0; h < n; ++h) {
          Tensor qh({T, D}), kh({T, D}), vh({T, D});
          for (int t = 0; t < T; ++t)
            for (int i = 0; i < D; ++i) {
              qh.data[t * D + i] = q.data[t * ld + h * D + i];
              kh.data[t * D + i] = k.data[t * ld + h * D + i];
              vh.data[t * D + i] = v.data[t * ld + h * D + i];
            }
          Tensor s({T, T}), p({T, T}), o({T, D});
          mha::kernels::attend_head_forward_simd(s.ptr(), p.ptr(), o.ptr(), qh.ptr(), kh.ptr(), vh.ptr(), T, D, scale, causal);
          for (auto attend : {mha::kernels::attend_head_forward_strided_simd, mha::kernels::attend_head_forward_strided_scalar}) {
            Tensor s2({T, T}), p2({T, T}), concat({T, ld});
            attend(s2.ptr(), p2.ptr(), concat.ptr() + h * D, ld, q.ptr() + h * D, ld, k.ptr() + h * D, ld, v.ptr() + h * D,
                   ld, T, 0, D, scale, causal);
            Tensor o2({T, D});
            for (int t = 0; t < T; ++t)
              for (int i = 0; i < D; ++i) o2.data[t * D + i] = concat.data[t * ld + h * D + i];
            if (attend == mha::kernels::attend_head_forward_strided_simd) {
              CHECK(s2.data == s.data);
              CHECK(p2.data == p.data);
              CHECK(o2.data == o.data);
            } else {
              check_close(s2, s, 1e-6, "scores");
              check_close(p2, p, 1e-5, "weights");
              check_close(o2, o, 1e-5, "head_out");
            }
            for (int t = 0; t < T; ++t)  // the other heads' columns are left alone
              for (int c = 0; c < ld; ++c)
                if (c / D != h) CHECK(concat.data[t * ld + c] == 0.0f);
          }
        }
      }
    }
  }
}

// A decoding step: T new query rows against past + T cached keys and values (rows n·D apart, as a
// KV cache holds them). The rows equal the last T rows of the run over all past + T positions, bit
// for bit (each entry is the same sum in the same order), and the oracle's values on every tail.
TEST_CASE("attend_head after past positions: the last rows of the whole run, bit for bit, and the oracle's values") {
  for (bool causal : {false, true}) {
    for (int past : {1, kWidth - 1, 7, 130}) {
      for (int T : {1, 2, kWidth + 1}) {
        for (int D : {3, kWidth + 1, 16}) {
          CAPTURE(causal);
          CAPTURE(past);
          CAPTURE(T);
          CAPTURE(D);
          const int n = 2, ld = n * D, all = past + T;
          const Tensor q = random_tensor({all, ld}, 27, 2.0f), k = random_tensor({all, ld}, 28, 2.0f),
                       v = random_tensor({all, ld}, 29);
          const float scale = 1.0f / std::sqrt(static_cast<float>(D));
          const int h = 1;  // the second head's columns
          Tensor s_all({all, all}), p_all({all, all}), o_all({all, ld});
          mha::kernels::attend_head_forward_strided_simd(s_all.ptr(), p_all.ptr(), o_all.ptr() + h * D, ld, q.ptr() + h * D,
                                                         ld, k.ptr() + h * D, ld, v.ptr() + h * D, ld, all, 0, D, scale, causal);
          const float* q_new = q.ptr() + static_cast<size_t>(past) * ld + h * D;
          Tensor s({T, all}), p({T, all}), o({T, ld});
          mha::kernels::attend_head_forward_strided_simd(s.ptr(), p.ptr(), o.ptr() + h * D, ld, q_new, ld, k.ptr() + h * D, ld,
                                                         v.ptr() + h * D, ld, T, past, D, scale, causal);
          Tensor s_scalar({T, all}), p_scalar({T, all}), o_scalar({T, ld});
          mha::kernels::attend_head_forward_strided_scalar(s_scalar.ptr(), p_scalar.ptr(), o_scalar.ptr() + h * D, ld, q_new,
                                                           ld, k.ptr() + h * D, ld, v.ptr() + h * D, ld, T, past, D, scale, causal);
          for (int i = 0; i < T; ++i) {
            for (int j = 0; j < all; ++j) {
              CHECK(s.data[i * all + j] == s_all.data[(past + i) * all + j]);
              CHECK(p.data[i * all + j] == p_all.data[(past + i) * all + j]);
            }
            for (int c = 0; c < ld; ++c) CHECK(o.data[i * ld + c] == o_all.data[(past + i) * ld + c]);
          }
          check_close(s_scalar, s, 1e-6, "scores");
          check_close(p_scalar, p, 1e-5, "weights");
          check_close(o_scalar, o, 1e-5, "head_out");
        }
      }
    }
  }
}

// A decoding step of every head at once over a cache's rows (every K/V head side by side): head by
// head it is the per-head kernel's step above, bit for bit, for any heads, any grouping of them onto
// K/V heads (a quad of query heads may span several) and heads not a multiple of 4.
TEST_CASE("attend_step: every head of a decoding step at once, the per-head kernel's bits") {
  if (!mha::kernels::attends_step_in_place(16)) {
    MESSAGE("attend_step runs at 4 lanes only; this build has " << kWidth);
    return;
  }
  CHECK_FALSE(mha::kernels::attends_step_in_place(6));
  struct Heads {
    int heads, kv_heads;
  };
  for (bool causal : {false, true})
    for (Heads hs : {Heads{1, 1}, Heads{3, 3}, Heads{4, 2}, Heads{6, 3}, Heads{6, 1}, Heads{12, 12}, Heads{12, 4}})
      for (int past : {0, 1, 7, 130})
        for (int D : {4, 16, 64}) {
          CAPTURE(causal);
          CAPTURE(hs.heads);
          CAPTURE(hs.kv_heads);
          CAPTURE(past);
          CAPTURE(D);
          const int keys = past + 1, group = hs.heads / hs.kv_heads, ld = hs.kv_heads * D;
          const Tensor q = random_tensor({hs.heads * D}, 31, 2.0f), k = random_tensor({keys, ld}, 32, 2.0f),
                       v = random_tensor({keys, ld}, 33);
          const float scale = 1.0f / std::sqrt(static_cast<float>(D));
          Tensor s({hs.heads, keys}), p({hs.heads, keys}), o({hs.heads * D});
          mha::kernels::attend_step_simd(s.ptr(), p.ptr(), o.ptr(), q.ptr(), k.ptr(), v.ptr(), ld, hs.heads, group, keys, D,
                                         scale, causal);
          for (int h = 0; h < hs.heads; ++h) {
            CAPTURE(h);
            const int g = h / group;
            Tensor s_head({1, keys}), p_head({1, keys}), o_head({D});
            mha::kernels::attend_head_forward_strided_simd(s_head.ptr(), p_head.ptr(), o_head.ptr(), D, q.ptr() + h * D, D,
                                                           k.ptr() + g * D, ld, v.ptr() + g * D, ld, 1, past, D, scale, causal);
            int differ = 0;
            for (int j = 0; j < keys; ++j)
              differ += s.data[h * keys + j] != s_head.data[j] || p.data[h * keys + j] != p_head.data[j];
            for (int c = 0; c < D; ++c) differ += o.data[h * D + c] != o_head.data[c];
            CHECK(differ == 0);
          }
        }
}

TEST_CASE("softmax rows sum to 1, masked entries are exactly 0, large magnitudes stay finite") {
  for (auto softmax : {mha::kernels::softmax_forward_simd, mha::kernels::softmax_forward_scalar}) {
    for (float magnitude : {1.0f, 100.0f, 1e4f, 1e38f}) {
      CAPTURE(magnitude);
      const int T = 2 * kWidth + 1;
      Tensor scores = random_tensor({T, T}, 7, magnitude), weights({T, T});
      for (int i = 0; i < T; ++i)
        for (int j = i + 1; j < T; ++j) scores.data[i * T + j] = -std::numeric_limits<float>::infinity();
      softmax(weights.ptr(), scores.ptr(), T, true);
      for (int i = 0; i < T; ++i) {
        double sum = 0;
        for (int j = 0; j < T; ++j) {
          const float w = weights.data[i * T + j];
          CHECK(std::isfinite(w));
          if (j > i) CHECK(w == 0.0f);
          sum += w;
        }
        CHECK(sum == doctest::Approx(1.0).epsilon(1e-6));
      }
    }
  }
}

TEST_CASE("matrix products longer than one K block (1024) continue their sums exactly") {
  SUBCASE("linear: full and partial panels") {
    const int T = 5, K = 1100, N = 9;  // N = 9: one full panel and one with a single column
    const Tensor x = random_tensor({T, K}, 11), w = random_tensor({N, K}, 12), b = random_tensor({N}, 13);
    Tensor simd({T, N}), scalar({T, N});
    mha::kernels::linear_forward_simd(simd.ptr(), x.ptr(), w.ptr(), b.ptr(), T, K, N);
    mha::kernels::linear_forward_scalar(scalar.ptr(), x.ptr(), w.ptr(), b.ptr(), T, K, N);
    check_close(simd, scalar, 2e-6, "linear, K = 1100");
  }
  SUBCASE("causal weighted sum over a sequence longer than a block") {
    const int T = 1030, D = 9;
    Tensor scores = random_tensor({T, T}, 14, 3.0f), weights({T, T});
    mha::kernels::softmax_forward_scalar(weights.ptr(), scores.ptr(), T, true);
    const Tensor v = random_tensor({T, D}, 15);
    Tensor simd({T, D}), scalar({T, D});
    mha::kernels::weighted_sum_forward_simd(simd.ptr(), weights.ptr(), v.ptr(), T, D, true);
    mha::kernels::weighted_sum_forward_scalar(scalar.ptr(), weights.ptr(), v.ptr(), T, D, true);
    check_close(simd, scalar, 2e-6, "causal P·V, T = 1030");
  }
}
