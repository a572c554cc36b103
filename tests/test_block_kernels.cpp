// Map of this file: the kernels of blocks and of training, each xsimd version against its scalar
// oracle on sizes around the SIMD width (every vector loop and every tail runs), plus the facts the
// oracles themselves must get right.
//   layernorm     — forward and backward; a row far from 0 where a one-pass variance loses its digits
//   gelu          — forward and backward, over a wide range of x
//   linear        — backward (dinp, dweight, dbias), accumulating
//   attend_head   — backward, causal and not, grouped heads accumulating into one dk/dv
//   loss          — softmax rows, cross-entropy values and its gradient
//   sum4, dot4    — the width-independent sums, bit for bit against four partial sums written out
//   adam          — one step by the formula
// (Every backward is also checked against finite differences of the whole loss in test_train.cpp.)
#include <doctest/doctest.h>

#include <cmath>
#include <vector>
#include <xsimd/xsimd.hpp>

#include "train/adam.h"
#include "kernels/encoder.h"
#include "kernels/gelu.h"
#include "kernels/kernels.h"
#include "kernels/layernorm.h"
#include "kernels/loss.h"
#include "kernels/simd_sum.h"
#include "test_helpers.h"

using mha::Tensor;
using mha_test::check_close;
using mha_test::kSizes;
using mha_test::kWidth;
using mha_test::random_tensor;

TEST_CASE("layernorm: xsimd equals the oracle, forward and backward, on every size") {
  for (int C : kSizes) {
    CAPTURE(C);
    const int N = 3;
    Tensor x = random_tensor({N, C}, 1, 2.0f), w = random_tensor({C}, 2), b = random_tensor({C}, 3);
    Tensor y1({N, C}), y2({N, C}), m1({N}), m2({N}), r1({N}), r2({N});
    mha::kernels::layernorm_forward_scalar(y1.ptr(), m1.ptr(), r1.ptr(), x.ptr(), w.ptr(), b.ptr(), N, C, 1e-5f);
    mha::kernels::layernorm_forward_simd(y2.ptr(), m2.ptr(), r2.ptr(), x.ptr(), w.ptr(), b.ptr(), N, C, 1e-5f);
    check_close(y2, y1, 1e-5, "layernorm forward");
    check_close(r2, r1, 1e-5, "rstd");
    const Tensor dy = random_tensor({N, C}, 4);
    Tensor dx1 = random_tensor({N, C}, 5), dx2 = dx1, dw1 = random_tensor({C}, 6), dw2 = dw1, db1({C}), db2({C});
    mha::kernels::layernorm_backward_scalar(dx1.ptr(), dw1.ptr(), db1.ptr(), dy.ptr(), x.ptr(), w.ptr(), m1.ptr(), r1.ptr(), N, C);
    mha::kernels::layernorm_backward_simd(dx2.ptr(), dw2.ptr(), db2.ptr(), dy.ptr(), x.ptr(), w.ptr(), m2.ptr(), r2.ptr(), N, C);
    check_close(dx2, dx1, 1e-4, "dinp (accumulated onto what was there)");
    check_close(dw2, dw1, 1e-5, "dweight");
    check_close(db2, db1, 1e-6, "dbias");
  }
  SUBCASE("a row at 10^4 with spread 1: two passes keep the variance (one pass: E[x²] = 10^8 in float)") {
    const int C = 64;
    Tensor x = random_tensor({1, C}, 7, 1.0f), w({C}), b({C}), y({1, C}), mean({1}), rstd({1});
    for (float& v : x.data) v += 1e4f;
    for (float& v : w.data) v = 1.0f;
    mha::kernels::layernorm_forward_simd(y.ptr(), mean.ptr(), rstd.ptr(), x.ptr(), w.ptr(), b.ptr(), 1, C, 1e-5f);
    double m = 0, var = 0;
    for (float v : y.data) m += v;
    for (float v : y.data) var += (v - m / C) * (v - m / C);
    CHECK(var / C == doctest::Approx(1.0).epsilon(0.02));  // a one-pass E[x²] − E[x]² gives garbage here
  }
}

TEST_CASE("gelu: xsimd equals the oracle, forward and backward, from −10 to 10") {
  const int N = 2003;  // not a multiple of the width
  Tensor x({N});
  for (int i = 0; i < N; ++i) x.data[i] = -10.0f + 20.0f * i / (N - 1);
  Tensor y1({N}), y2({N});
  mha::kernels::gelu_forward_scalar(y1.ptr(), x.ptr(), N);
  mha::kernels::gelu_forward_simd(y2.ptr(), x.ptr(), N);
  check_close(y2, y1, 1e-6, "gelu forward");
  CHECK(y1.data[0] == doctest::Approx(0.0).epsilon(1e-6).scale(1));        // GELU(−10) ≈ 0
  CHECK(y1.data[N - 1] == doctest::Approx(10.0).epsilon(1e-6));            // GELU(10) ≈ 10
  const Tensor dy = random_tensor({N}, 8);
  Tensor d1 = random_tensor({N}, 9), d2 = d1;
  mha::kernels::gelu_backward_scalar(d1.ptr(), x.ptr(), dy.ptr(), N);
  mha::kernels::gelu_backward_simd(d2.ptr(), x.ptr(), dy.ptr(), N);
  check_close(d2, d1, 1e-5, "gelu backward");
}

TEST_CASE("linear backward: xsimd (through the packed GEMM) equals the oracle, and accumulates") {
  for (int K : kSizes)
    for (int N : {1, kWidth + 1, 19}) {
      CAPTURE(K);
      CAPTURE(N);
      const int T = 7;
      const Tensor in = random_tensor({T, K}, 10), w = random_tensor({N, K}, 11), dout = random_tensor({T, N}, 12);
      Tensor di1 = random_tensor({T, K}, 13), di2 = di1, dw1 = random_tensor({N, K}, 14), dw2 = dw1;
      Tensor db1 = random_tensor({N}, 15), db2 = db1;
      mha::kernels::linear_backward_scalar(di1.ptr(), dw1.ptr(), db1.ptr(), dout.ptr(), in.ptr(), w.ptr(), T, K, N);
      mha::kernels::linear_backward_simd(di2.ptr(), dw2.ptr(), db2.ptr(), dout.ptr(), in.ptr(), w.ptr(), T, K, N);
      check_close(di2, di1, 1e-5, "dinp");
      check_close(dw2, dw1, 1e-5, "dweight");
      check_close(db2, db1, 1e-5, "dbias");
    }
}

TEST_CASE("attend_head backward: xsimd equals the oracle, causal or not, accumulating into shared K and V") {
  for (int T : {1, 2, kWidth + 1, 13})
    for (int D : {1, kWidth, 6})
      for (bool causal : {false, true}) {
        CAPTURE(T);
        CAPTURE(D);
        CAPTURE(causal);
        const float scale = 1.0f / std::sqrt(static_cast<float>(D));
        const Tensor q = random_tensor({T, D}, 20), k = random_tensor({T, D}, 21), v = random_tensor({T, D}, 22);
        Tensor scores({T, T}), weights({T, T}), out({T, D});
        mha::kernels::attend_head_forward_scalar(scores.ptr(), weights.ptr(), out.ptr(), q.ptr(), k.ptr(), v.ptr(), T, D,
                                                 scale, causal);
        const Tensor dout = random_tensor({T, D}, 23);
        Tensor dq1 = random_tensor({T, D}, 24), dq2 = dq1, dk1 = random_tensor({T, D}, 25), dk2 = dk1;
        Tensor dv1 = random_tensor({T, D}, 26), dv2 = dv1, ds({T, T});
        mha::kernels::attend_head_backward_scalar(dq1.ptr(), dk1.ptr(), dv1.ptr(), ds.ptr(), dout.ptr(), q.ptr(), k.ptr(),
                                                  v.ptr(), weights.ptr(), T, D, scale, causal);
        mha::kernels::attend_head_backward_simd(dq2.ptr(), dk2.ptr(), dv2.ptr(), ds.ptr(), dout.ptr(), q.ptr(), k.ptr(),
                                                v.ptr(), weights.ptr(), T, D, scale, causal);
        check_close(dq2, dq1, 1e-5, "dq");
        check_close(dk2, dk1, 1e-5, "dk");
        check_close(dv2, dv1, 1e-5, "dv");
      }
  SUBCASE("T = 1: the one weight is 1 whatever the score, so dq and dk stay as they were") {
    const Tensor q = random_tensor({1, 4}, 30), k = random_tensor({1, 4}, 31), v = random_tensor({1, 4}, 32);
    Tensor dq({1, 4}), dk({1, 4}), dv({1, 4}), ds({1, 1});
    const Tensor w({1, 1}, {1.0f}), dout({1, 4}, {1, 2, 3, 4});
    mha::kernels::attend_head_backward_simd(dq.ptr(), dk.ptr(), dv.ptr(), ds.ptr(), dout.ptr(), q.ptr(), k.ptr(), v.ptr(),
                                            w.ptr(), 1, 4, 0.5f, true);
    CHECK(dq.data == std::vector<float>(4, 0.0f));
    CHECK(dk.data == std::vector<float>(4, 0.0f));
    CHECK(dv.data == dout.data);
  }
}

TEST_CASE("softmax over a vocabulary, cross-entropy and its gradient") {
  const int V = 11;
  Tensor logits({2, V}), probs({2, V});
  for (int v = 0; v < V; ++v) logits.data[v] = 0.0f, logits.data[V + v] = v == 3 ? 1000.0f : -1000.0f;
  mha::softmax_forward_rows(probs.ptr(), logits.ptr(), 2, V);
  for (int v = 0; v < V; ++v) CHECK(probs.data[v] == doctest::Approx(1.0 / V).epsilon(1e-6));
  CHECK(probs.data[V + 3] == 1.0f);  // no overflow at 1000
  const std::vector<int32_t> targets = {5, -1};
  std::vector<float> losses(2);
  mha::crossentropy_forward(losses.data(), logits.ptr(), targets.data(), 2, V);
  CHECK(losses[0] == doctest::Approx(std::log(static_cast<double>(V))).epsilon(1e-6));
  CHECK(losses[1] == 0.0f);  // no target, no loss
  // A confident wrong answer: its probability underflows to 0, its loss is the logit gap, not infinity.
  const std::vector<int32_t> wrong = {-1, 4};
  mha::crossentropy_forward(losses.data(), logits.ptr(), wrong.data(), 2, V);
  CHECK(probs.data[V + 4] == 0.0f);
  CHECK(losses[1] == doctest::Approx(2000.0).epsilon(1e-6));
  Tensor d({2, V});
  mha::crossentropy_softmax_backward(d.ptr(), probs.ptr(), targets.data(), 2, V, 0.5f);
  CHECK(d.data[5] == doctest::Approx(0.5 * (1.0 / V - 1.0)).epsilon(1e-6));
  CHECK(d.data[0] == doctest::Approx(0.5 / V).epsilon(1e-6));
  for (int v = 0; v < V; ++v) CHECK(d.data[V + v] == 0.0f);
}

TEST_CASE("sum4 and dot4: four partial sums in order of j, (l0 + l1) + (l2 + l3), then the tail, whatever the SIMD width") {
  for (int n : {0, 1, 3, 4, 5, 8, 13, 64, 67}) {
    CAPTURE(n);
    const Tensor x = random_tensor({n + 1}, 40), y = random_tensor({n + 1}, 41);
    float part[4] = {0, 0, 0, 0}, dpart[4] = {0, 0, 0, 0};
    const int whole = n / 4 * 4;
    for (int j = 0; j < whole; ++j) part[j % 4] += x.data[j], dpart[j % 4] += x.data[j] * y.data[j];
    float sum = (part[0] + part[1]) + (part[2] + part[3]), dot = (dpart[0] + dpart[1]) + (dpart[2] + dpart[3]);
    for (int j = whole; j < n; ++j) sum += x.data[j], dot += x.data[j] * y.data[j];
    CHECK(mha::sum4(x.ptr(), n) == sum);  // exactly: the softmaxes and the attention backward rely on these bits
    CHECK(mha::dot4(x.ptr(), y.ptr(), n) == dot);
  }
}

TEST_CASE("encoder: token row plus position row, and the backward scatters to both") {
  const int B = 2, T = 2, C = 3;
  const std::vector<int32_t> ids = {1, 0, 1, 1};
  const Tensor wte({2, C}, {0, 0, 0, 10, 20, 30}), wpe({2, C}, {1, 2, 3, 4, 5, 6});
  Tensor out({B, T, C});
  mha::encoder_forward(out.ptr(), ids.data(), wte.ptr(), wpe.ptr(), B, T, C);
  CHECK(out.data == std::vector<float>{11, 22, 33, 4, 5, 6, 11, 22, 33, 14, 25, 36});
  Tensor dwte({2, C}), dwpe({2, C});
  const Tensor dout({B, T, C}, std::vector<float>(12, 1.0f));
  mha::encoder_backward(dwte.ptr(), dwpe.ptr(), dout.ptr(), ids.data(), B, T, C);
  CHECK(dwte.data == std::vector<float>{1, 1, 1, 3, 3, 3});  // id 1 occurs three times
  CHECK(dwpe.data == std::vector<float>{2, 2, 2, 2, 2, 2});
}

TEST_CASE("adamw_update: one step by the formula, with bias correction and decoupled decay") {
  mha::AdamSettings s;
  s.lr = 0.1f, s.beta1 = 0.9f, s.beta2 = 0.99f, s.eps = 1e-8f, s.weight_decay = 0.5f;
  float p[1] = {2.0f}, g[1] = {0.3f}, m[1] = {0.0f}, v[1] = {0.0f};
  mha::adamw_update(p, g, m, v, 1, s, 1);
  // m = 0.03, v = 0.0009; m̂ = 0.3, v̂ = 0.09 -> step 0.1 · 0.3 / 0.3 = 0.1; decay 2 · (1 − 0.05) = 1.9
  CHECK(m[0] == doctest::Approx(0.03));
  CHECK(v[0] == doctest::Approx(0.0009));
  CHECK(p[0] == doctest::Approx(1.8).epsilon(1e-6));
}
