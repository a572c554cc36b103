// Map of this file (rotary position embeddings, rope.h):
//   the tables     — rope_sincos and rope_theta against the C library; the per-thread cache
//   the kernel     — the xsimd version equals the scalar oracle on every tail, and transformers'
//                    float32 arithmetic bit for bit
//   what it does   — lengths kept, position 0 untouched, scores depend on the distance only
//   conventions    — Meta's interleaved pairs on unpermuted weights = ours on Hugging Face's permutation
//   the stage      — walked only with a base; the config's limits
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "model/forward.h"
#include "model/parameters.h"
#include "base/error.h"
#include "kernels/kernels.h"
#include "kernels/rope.h"
#include "model/stages.h"
#include "test_helpers.h"

using mha::Tensor;
using mha_test::check_close;
using mha_test::kSizes;
using mha_test::random_tensor;

TEST_CASE("rope_sincos and rope_theta agree with the C library to double precision") {
  double worst = 0;
  for (double a = 0; a < 5000; a += 0.731) {
    double c = 0, s = 0;
    mha::rope_sincos(a, c, s);
    worst = std::max({worst, std::fabs(c - std::cos(a)), std::fabs(s - std::sin(a))});
  }
  CHECK(worst < 1e-13);  // at a = 5000 one ulp of a is 9e-13: the angle, not the series, limits it
  for (double base : {10000.0, 500000.0, 2.5})
    for (int D : {2, 4, 64, 128})
      for (int i = 0; i < D / 2; ++i) {
        const double expected = std::pow(base, -2.0 * i / D);
        CHECK(std::fabs(mha::rope_theta(i, D, base) - expected) <= 1e-14 * expected);
      }
}

TEST_CASE("rope tables: float32 angles as transformers rounds them, kept until D, base or a longer T") {
  const mha::RopeTables& t = mha::rope_tables(7, 8, 10000.0);
  REQUIRE(t.cos.size() >= 7 * 4u);
  for (int pos = 0; pos < 7; ++pos)
    for (int i = 0; i < 4; ++i) {
      const float angle = static_cast<float>(pos) * static_cast<float>(std::pow(10000.0, -2.0 * i / 8));
      CHECK(t.cos[pos * 4 + i] == static_cast<float>(std::cos(static_cast<double>(angle))));
      CHECK(t.sin[pos * 4 + i] == static_cast<float>(std::sin(static_cast<double>(angle))));
    }
  const float* before = t.cos.data();
  CHECK(&mha::rope_tables(3, 8, 10000.0) == &t);
  CHECK(t.rows == 7);  // a shorter T reads the first rows: they do not depend on T
  CHECK(t.cos.data() == before);
  mha::rope_tables(3, 8, 500000.0);
  CHECK(t.base == 500000.0);
  mha::rope_tables(9, 8, 500000.0);
  CHECK(t.rows == 9);
}

TEST_CASE("rope_forward: SIMD equals the scalar oracle on every tail, and transformers' float32 bit for bit") {
  for (int T : {1, 3}) {
    for (int half : kSizes) {
      const int D = 2 * half;
      CAPTURE(T);
      CAPTURE(D);
      const mha::RopeTables& tables = mha::rope_tables(T, D, 10000.0);
      const Tensor x = random_tensor({T, D}, 7, 3.0f);
      Tensor simd({T, D}), scalar({T, D});
      mha::kernels::rope_forward_simd(simd.ptr(), x.ptr(), tables.cos.data(), tables.sin.data(), T, D);
      mha::kernels::rope_forward_scalar(scalar.ptr(), x.ptr(), tables.cos.data(), tables.sin.data(), T, D);
      check_close(simd, scalar, 1e-6, "rope");
      // q·cos + rotate_half(q)·sin, each product rounded to float, then the sum
      for (int t = 0; t < T; ++t)
        for (int i = 0; i < D; ++i) {
          const float c = tables.cos[t * half + i % half], s = tables.sin[t * half + i % half];
          const float rotated = i < half ? -x.data[t * D + i + half] : x.data[t * D + i - half];
          const float product_c = x.data[t * D + i] * c, product_s = rotated * s;
          CHECK(simd.data[t * D + i] == product_c + product_s);
        }
    }
  }
}

TEST_CASE("RoPE keeps each pair's length, leaves position 0 alone, and scores see only the distance") {
  const int T = 6, D = 8, half = D / 2;
  const mha::RopeTables& tables = mha::rope_tables(T, D, 10000.0);
  // The same q and the same k at every position: q_rot[t]·k_rot[s] must depend on t − s only.
  const Tensor q1 = random_tensor({1, D}, 11), k1 = random_tensor({1, D}, 12);
  Tensor q({T, D}), k({T, D}), q_rot({T, D}), k_rot({T, D});
  for (int t = 0; t < T; ++t)
    for (int i = 0; i < D; ++i) q.data[t * D + i] = q1.data[i], k.data[t * D + i] = k1.data[i];
  mha::kernels::rope_forward_simd(q_rot.ptr(), q.ptr(), tables.cos.data(), tables.sin.data(), T, D);
  mha::kernels::rope_forward_simd(k_rot.ptr(), k.ptr(), tables.cos.data(), tables.sin.data(), T, D);
  for (int i = 0; i < D; ++i) CHECK(q_rot.data[i] == q.data[i]);
  for (int t = 0; t < T; ++t)
    for (int i = 0; i < half; ++i)
      CHECK(std::hypot(q_rot.data[t * D + i], q_rot.data[t * D + i + half]) ==
            doctest::Approx(std::hypot(q.data[t * D + i], q.data[t * D + i + half])).epsilon(1e-6));
  const auto dot = [&](int t, int s) {
    double sum = 0;
    for (int i = 0; i < D; ++i) sum += static_cast<double>(q_rot.data[t * D + i]) * k_rot.data[s * D + i];
    return sum;
  };
  for (int t = 1; t < T; ++t)
    for (int s = 1; s <= t; ++s) CHECK(dot(t, s) == doctest::Approx(dot(t - 1, s - 1)).epsilon(1e-5));
  CHECK(std::fabs(dot(3, 0) - dot(0, 0)) > 1e-3);  // ... and it does depend on the distance
}

namespace {

// Hugging Face's convert_llama_weights_to_hf.py permute(): within each head, row 2i+j of Meta's
// checkpoint becomes row j·d_head/2 + i, so Meta's pairs (2i, 2i+1) land on (i, i + d_head/2).
Tensor hf_permute(const Tensor& w, int n_heads) {
  const int rows = static_cast<int>(w.shape[0]), cols = static_cast<int>(w.shape[1]), D = rows / n_heads;
  Tensor out(w.shape);
  for (int h = 0; h < n_heads; ++h)
    for (int i = 0; i < D / 2; ++i)
      for (int j = 0; j < 2; ++j)
        for (int c = 0; c < cols; ++c)
          out.data[(h * D + j * D / 2 + i) * cols + c] = w.data[(h * D + 2 * i + j) * cols + c];
  return out;
}

// Meta's llama/model.py in double: each head's pairs (2i, 2i+1) turned as complex numbers by t·θ_i.
std::vector<double> meta_rotated(const Tensor& x, const Tensor& w, int T, int n_heads, int D, double base) {
  const int d = static_cast<int>(x.shape[2]);
  std::vector<double> out(static_cast<size_t>(T) * n_heads * D);
  for (int t = 0; t < T; ++t)
    for (int h = 0; h < n_heads; ++h)
      for (int i = 0; i < D / 2; ++i) {
        double re = 0, im = 0;
        for (int c = 0; c < d; ++c) {
          re += static_cast<double>(x.data[t * d + c]) * w.data[(h * D + 2 * i) * d + c];
          im += static_cast<double>(x.data[t * d + c]) * w.data[(h * D + 2 * i + 1) * d + c];
        }
        const double a = t * std::pow(base, -2.0 * i / D);
        out[(h * T + t) * D + 2 * i] = re * std::cos(a) - im * std::sin(a);
        out[(h * T + t) * D + 2 * i + 1] = re * std::sin(a) + im * std::cos(a);
      }
  return out;
}

}  // namespace

TEST_CASE("Meta's interleaved RoPE on its weights = ours on Hugging Face's permuted weights: the same scores") {
  mha::Config c;
  c.d_model = 16, c.heads = 4, c.kv_heads = 2, c.rope_base = 10000.0;
  const int T = 5, D = c.d_head(), kv = c.kv_heads, d = c.d_model;
  mha::AttentionWeights meta = mha_test::random_attention(c);
  const Tensor x = random_tensor({1, T, d}, 21);
  mha::AttentionWeights hf = meta;
  hf.w_q = hf_permute(meta.w_q, c.heads);
  hf.w_k = hf_permute(meta.w_k, kv);

  const std::vector<double> q = meta_rotated(x, meta.w_q, T, c.heads, D, c.rope_base);
  const std::vector<double> k = meta_rotated(x, meta.w_k, T, kv, D, c.rope_base);
  Tensor expected({1, c.heads, T, T});
  for (int h = 0; h < c.heads; ++h)
    for (int i = 0; i < T; ++i)
      for (int j = 0; j < T; ++j) {
        double sum = 0;
        for (int e = 0; e < D; ++e) sum += q[(h * T + i) * D + e] * k[((h / (c.heads / kv)) * T + j) * D + e];
        expected.data[(h * T + i) * T + j] = static_cast<float>(sum / std::sqrt(D));
      }
  for (mha::KernelPath path : {mha::KernelPath::simd, mha::KernelPath::scalar}) {
    CAPTURE(mha::kernel_path_name(path));
    const mha::Trace trace = mha_test::attention_trace(x, hf, c, path);
    check_close(trace.get("raw_scores"), expected, 1e-5, "raw_scores");
    // Without the permutation the pairs are the wrong ones: the check above can fail.
    const mha::Trace unpermuted = mha_test::attention_trace(x, meta, c, path);
    CHECK_FALSE(mha::compare_tensors(unpermuted.get("raw_scores"), expected, 1e-5).ok);
  }
}

TEST_CASE("the rope stage: walked only with a base, by a single layer with an even d_head") {
  mha::Config c;
  c.d_model = 8, c.heads = 2;
  const Tensor x = random_tensor({1, 3, 8}, 5);
  const mha::Trace plain = mha_test::attention_trace(x, mha_test::random_attention(c), c);
  CHECK_FALSE(plain.has("q_rot"));
  CHECK_FALSE(mha::walks(c, mha::Stage::rope));

  c.rope_base = 10000;
  CHECK(mha::walks(c, mha::Stage::rope));
  const mha::Trace rotated = mha_test::attention_trace(x, mha_test::random_attention(c), c);
  REQUIRE(rotated.has("q_rot"));
  CHECK(rotated.get("q_rot").shape == mha::Shape{1, 2, 3, 4});
  CHECK(rotated.get("k_rot").shape == mha::Shape{1, 2, 3, 4});
  const std::vector<std::string> names = rotated.names();
  CHECK(std::find(names.begin(), names.end(), "v_heads") < std::find(names.begin(), names.end(), "q_rot"));
  CHECK(std::find(names.begin(), names.end(), "k_rot") < std::find(names.begin(), names.end(), "raw_scores"));

  SUBCASE("an odd d_head has no pairs") {
    c.d_model = 6, c.heads = 2;
    CHECK_THROWS_WITH_AS(mha::validate_config(c), doctest::Contains("d_head must be even"), mha::Error);
  }
  SUBCASE("models of blocks have none") {
    c.preset = mha::Preset::gpt2, c.causal = true;
    CHECK_THROWS_WITH_AS(mha::validate_config(c), doctest::Contains("one llama-layout layer"), mha::Error);
  }
  SUBCASE("a negative or NaN base") {
    c.rope_base = -1;
    CHECK_THROWS_AS(mha::validate_config(c), mha::Error);
    c.rope_base = std::nan("");
    CHECK_THROWS_AS(mha::validate_config(c), mha::Error);
  }
}
