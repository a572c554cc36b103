// Properties of the whole forward pass, each its own test case:
//   shapes of every stage for 我是秦始皇 (the learner's first example) and for T = 1
//   softmax rows sum to 1; causal scores are -inf and weights exactly 0 above the diagonal
//   each head equals single-head attention computed on its own slice of the weights
//   grouped-query attention equals MHA whose K/V heads are repeated; kv_heads = heads is MHA
//   the SIMD path equals the scalar path end to end; the same seed gives the same bits
//   Rng::fill_uniform draws what uniform() draws; configure equals a fresh model of its config
//   bad configs, NaN and overflow give mha::Error; check_finite finds the first bad index
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "model/forward.h"
#include "model/parameters.h"
#include "base/error.h"
#include "model/embedding.h"
#include "model/model.h"
#include "base/random.h"
#include "test_helpers.h"

using mha::Config;
using mha::Shape;
using mha::Tensor;

namespace {

Config make_config(int d_model, int heads, int kv_heads, bool causal, uint64_t seed = 3) {
  Config c;
  c.d_model = d_model;
  c.heads = heads;
  c.kv_heads = kv_heads;
  c.causal = causal;
  c.seed = seed;
  return c;
}

}  // namespace

TEST_CASE("我是秦始皇 at d_model 512 with 8 heads has the shapes every tutorial draws") {
  const mha::Trace t = mha::Model(make_config(512, 8, 0, false)).run_text("我是秦始皇");
  CHECK(t.tokens == std::vector<std::string>{"我", "是", "秦", "始", "皇"});
  CHECK(t.ids.size() == 5);
  const std::pair<const char*, Shape> expected[] = {
      {"token_embedding", {1, 5, 512}}, {"position_encoding", {1, 5, 512}}, {"x", {1, 5, 512}},
      {"q", {1, 5, 512}},               {"k", {1, 5, 512}},                 {"v", {1, 5, 512}},
      {"q_heads", {1, 8, 5, 64}},       {"k_heads", {1, 8, 5, 64}},         {"v_heads", {1, 8, 5, 64}},
      {"raw_scores", {1, 8, 5, 5}},     {"scores", {1, 8, 5, 5}},           {"weights", {1, 8, 5, 5}},
      {"head_out", {1, 8, 5, 64}},      {"concat", {1, 5, 512}},            {"y", {1, 5, 512}},
      {"head_write", {1, 8, 5, 512}}};
  REQUIRE(t.entries().size() == std::size(expected));
  for (size_t i = 0; i < std::size(expected); ++i) {
    CAPTURE(expected[i].first);
    CHECK(t.entries()[i].name == expected[i].first);
    CHECK(t.entries()[i].tensor.shape == expected[i].second);
  }
}

TEST_CASE("x is the token embedding plus the sinusoidal position encoding") {
  const mha::Trace t = mha::Model(make_config(16, 2, 0, false)).run_text("the cat sat");
  const Tensor& pe = t.get("position_encoding");
  CHECK(pe.data[0] == 0.0f);  // sin(0)
  CHECK(pe.data[1] == 1.0f);  // cos(0)
  CHECK(pe.data[16] == doctest::Approx(std::sin(1.0)));
  CHECK(pe.data[16 + 2] == doctest::Approx(std::sin(1.0 / std::pow(10000.0, 2.0 / 16))));
  for (size_t i = 0; i < t.get("x").numel(); ++i)
    CHECK(t.get("x").data[i] == t.get("token_embedding").data[i] + pe.data[i]);
  SUBCASE("the same token gets the same embedding row wherever it stands") {
    const mha::Trace u = mha::Model(make_config(16, 2, 0, false)).run_text("cat cat");
    for (int i = 0; i < 16; ++i) CHECK(u.get("token_embedding").data[i] == u.get("token_embedding").data[16 + i]);
  }
}

TEST_CASE("one token (T = 1) attends only to itself") {
  const mha::Trace t = mha::Model(make_config(24, 3, 0, true)).run_text("我");
  CHECK(t.get("weights").shape == Shape{1, 3, 1, 1});
  for (float w : t.get("weights").data) CHECK(w == 1.0f);
}

TEST_CASE("softmax rows sum to 1 and the causal mask hides the future") {
  for (bool causal : {false, true}) {
    CAPTURE(causal);
    const mha::Trace t = mha::Model(make_config(32, 4, 0, causal)).run_text("The animal didn't cross the street.");
    const Tensor& s = t.get("scores");
    const Tensor& w = t.get("weights");
    const int heads = 4, T = static_cast<int>(t.tokens.size());
    for (int h = 0; h < heads; ++h) {
      for (int i = 0; i < T; ++i) {
        double sum = 0;
        for (int j = 0; j < T; ++j) {
          const int at = (h * T + i) * T + j;
          sum += w.data[at];
          if (causal && j > i) {
            CHECK(s.data[at] == -std::numeric_limits<float>::infinity());
            CHECK(w.data[at] == 0.0f);
          } else {
            CHECK(std::isfinite(s.data[at]));
            CHECK(w.data[at] > 0.0f);
          }
        }
        CHECK(sum == doctest::Approx(1.0).epsilon(1e-6));
      }
    }
  }
}

TEST_CASE("each head equals single-head attention on its own slice of W_Q, W_K, W_V") {
  const int d = 24, heads = 4, kv_heads = 2, D = d / heads;
  const Config c = make_config(d, heads, kv_heads, true);
  const mha::Model model(c);
  const mha::Trace t = model.run_text("多头注意力把宽度分给各个头");
  const int T = static_cast<int>(t.tokens.size());
  const Tensor& x = t.get("x");
  const mha::AttentionWeights& w = model.weights();

  for (int h = 0; h < heads; ++h) {
    CAPTURE(h);
    const int g = h / (heads / kv_heads);
    // Project x with only this head's rows of the weights, in double.
    auto project = [&](const Tensor& W, const Tensor& b, int row0, int t, int e) {
      double s = b.data[row0 + e];
      for (int i = 0; i < d; ++i) s += static_cast<double>(x.data[t * d + i]) * W.data[(row0 + e) * d + i];
      return s;
    };
    for (int i = 0; i < T; ++i) {
      std::vector<double> p(T, 0.0);
      double max = -INFINITY, sum = 0;
      for (int j = 0; j <= i; ++j) {
        double dot = 0;
        for (int e = 0; e < D; ++e) dot += project(w.w_q, w.b_q, h * D, i, e) * project(w.w_k, w.b_k, g * D, j, e);
        p[j] = dot / std::sqrt(static_cast<double>(D));
        max = std::max(max, p[j]);
      }
      for (int j = 0; j <= i; ++j) sum += (p[j] = std::exp(p[j] - max));
      for (int e = 0; e < D; ++e) {
        double out = 0;
        for (int j = 0; j <= i; ++j) out += p[j] / sum * project(w.w_v, w.b_v, g * D, j, e);
        CHECK(t.get("head_out").data[(h * T + i) * D + e] == doctest::Approx(out).epsilon(1e-5));
        CHECK(t.get("concat").data[i * d + h * D + e] == t.get("head_out").data[(h * T + i) * D + e]);
      }
    }
  }
}

TEST_CASE("grouped-query attention is MHA with each K/V head repeated for its group") {
  const int d = 32, heads = 8, kv_heads = 2, D = d / heads, group = heads / kv_heads;
  const Config gqa = make_config(d, heads, kv_heads, true);
  const mha::AttentionWeights w = mha_test::random_attention(gqa);
  mha::AttentionWeights repeated = w;
  repeated.w_k = Tensor({d, d});
  repeated.w_v = Tensor({d, d});
  repeated.b_k = mha_test::random_tensor({d}, 1);  // overwritten below
  repeated.b_v = repeated.b_k;
  for (int h = 0; h < heads; ++h) {
    const int g = h / group;
    for (int e = 0; e < D; ++e) {
      for (int i = 0; i < d; ++i) {
        repeated.w_k.data[(h * D + e) * d + i] = w.w_k.data[(g * D + e) * d + i];
        repeated.w_v.data[(h * D + e) * d + i] = w.w_v.data[(g * D + e) * d + i];
      }
      repeated.b_k.data[h * D + e] = w.b_k.data[g * D + e];
      repeated.b_v.data[h * D + e] = w.b_v.data[g * D + e];
    }
  }
  const Tensor x = mha_test::random_tensor({1, 6, d}, 9);
  const mha::Trace a = mha_test::attention_trace(x, w, gqa);
  const mha::Trace b = mha_test::attention_trace(x, repeated, make_config(d, heads, heads, true));
  for (const char* name : {"q_heads", "scores", "weights", "head_out", "concat", "y"})
    mha_test::check_close(a.get(name), b.get(name), 0.0, name);
  CHECK(a.get("k_heads").shape == Shape{1, kv_heads, 6, D});
  CHECK(b.get("k_heads").shape == Shape{1, heads, 6, D});

  SUBCASE("kv_heads = heads is ordinary MHA") {
    const mha::Trace m = mha::Model(make_config(d, heads, 0, false)).run_text("same weights");
    const mha::Trace n = mha::Model(make_config(d, heads, heads, false)).run_text("same weights");
    mha_test::check_close(m.get("y"), n.get("y"), 0.0, "y");
  }
}

TEST_CASE("the SIMD path equals the scalar path end to end") {
  for (bool causal : {false, true}) {
    for (int d : {36, 64}) {  // d_head 9 leaves a tail after the SIMD width
      CAPTURE(causal);
      CAPTURE(d);
      const mha::Model model(make_config(d, 4, 2, causal));
      const std::string text = "Attention, 注意力, is all you need 😀";
      const mha::Trace simd = model.run_text(text, mha::KernelPath::simd);
      const mha::Trace scalar = model.run_text(text, mha::KernelPath::scalar);
      for (const auto& e : scalar.entries()) mha_test::check_close(simd.get(e.name), e.tensor, 1e-6, e.name);
    }
  }
}

TEST_CASE("the same seed gives the same bits; another seed gives other weights") {
  const mha::Trace a = mha::Model(make_config(32, 4, 0, false, 7)).run_text("seeded");
  const mha::Trace b = mha::Model(make_config(32, 4, 0, false, 7)).run_text("seeded");
  const mha::Trace c = mha::Model(make_config(32, 4, 0, false, 8)).run_text("seeded");
  CHECK(a.get("y").data == b.get("y").data);
  CHECK(a.get("y").data != c.get("y").data);
}

TEST_CASE("Rng::fill_uniform draws what as many uniform() calls draw, and the stream goes on the same") {
  for (const size_t n : {size_t{0}, size_t{1}, size_t{7}, size_t{1000}}) {
    CAPTURE(n);
    mha::Rng one_by_one(42), filled(42);
    std::vector<float> expected(n), got(n);
    for (float& v : expected) v = one_by_one.uniform(-0.25f, 0.75f);
    filled.fill_uniform(got.data(), n, -0.25f, 0.75f);
    CHECK(got == expected);
    CHECK(filled.next_u32() == one_by_one.next_u32());
  }
}

TEST_CASE("bad configs, NaN and overflow are errors with a reason") {
  using doctest::Contains;
  CHECK_THROWS_WITH_AS(mha::Model(make_config(512, 0, 0, false)), Contains("heads must be between 1"), mha::Error);
  CHECK_THROWS_WITH_AS(mha::Model(make_config(10, 4, 0, false)), Contains("not divisible by heads"), mha::Error);
  CHECK_THROWS_WITH_AS(mha::Model(make_config(24, 8, 3, false)), Contains("not divisible by kv_heads"), mha::Error);
  CHECK_THROWS_WITH_AS(mha::Model(make_config(24, 4, 8, false)), Contains("kv_heads must be between"), mha::Error);
  CHECK_THROWS_WITH_AS(mha::Model(make_config(0, 1, 0, false)), Contains("d_model must be between"), mha::Error);

  const mha::Model model(make_config(8, 2, 0, false));
  Tensor x = mha_test::random_tensor({3, 8}, 1);
  SUBCASE("NaN") {
    x.data[5] = std::nanf("");
    CHECK_THROWS_WITH_AS(model.run_input(x), Contains("NaN"), mha::Error);
  }
  SUBCASE("infinity") {
    x.data[0] = INFINITY;
    CHECK_THROWS_WITH_AS(model.run_input(x), Contains("infinity"), mha::Error);
  }
  SUBCASE("wrong width") {
    CHECK_THROWS_WITH_AS(model.run_input(mha_test::random_tensor({3, 7}, 1)), Contains("expected (1, T, 8)"), mha::Error);
  }
  SUBCASE("overflow inside the computation") {
    for (float& v : x.data) v = 3e38f;
    CHECK_THROWS_WITH_AS(model.run_input(x), Contains("overflowed"), mha::Error);
  }
}

TEST_CASE("check_finite names the first NaN or infinity wherever it is, and passes finite extremes") {
  Tensor t({3000});  // three chunks of 1024, the last one short
  for (size_t i = 0; i < t.data.size(); ++i) t.data[i] = (i % 2 ? -1.0f : 1.0f) * std::numeric_limits<float>::max();
  t.data[7] = std::numeric_limits<float>::denorm_min();
  CHECK_NOTHROW(mha::check_finite(t, "t"));
  for (const size_t at : {size_t{0}, size_t{1023}, size_t{1024}, size_t{2999}}) {
    CAPTURE(at);
    Tensor bad = t;
    bad.data[at] = -INFINITY;
    if (at + 1 < bad.data.size()) bad.data[at + 1] = std::nanf("");  // a later one is not the one named
    CHECK_THROWS_WITH_AS(mha::check_finite(bad, "t"), ("t contains infinity at flat index " + std::to_string(at)).c_str(),
                         mha::Error);
  }
  t.data[2048] = std::nanf("");
  CHECK_THROWS_WITH_AS(mha::check_finite(t, "t"), "t contains NaN at flat index 2048", mha::Error);
}

TEST_CASE("refilling a trace gives the same tensors as a fresh one, whatever ran before") {
  const mha::Model big(make_config(64, 4, 2, true));
  const mha::Model small(make_config(36, 4, 0, false));  // 36: panels do not divide the width
  mha::Trace reused;
  const auto check_same = [](const mha::Trace& a, const mha::Trace& b) {
    REQUIRE(a.names() == b.names());
    CHECK(a.tokens == b.tokens);
    CHECK(a.ids == b.ids);
    for (const auto& e : b.entries()) {
      CAPTURE(e.name);
      CHECK(a.get(e.name).shape == e.tensor.shape);
      CHECK(a.get(e.name).data == e.tensor.data);
    }
  };
  big.run_text_into(reused, "第一次 the first run");
  check_same(reused, big.run_text("第一次 the first run"));
  big.run_text_into(reused, "a longer second run, with more tokens than before");
  check_same(reused, big.run_text("a longer second run, with more tokens than before"));
  const Tensor x = mha_test::random_tensor({3, 36}, 5);
  small.run_input_into(reused, x);  // fewer tensors, other sizes
  check_same(reused, small.run_input(x));
  CHECK(reused.tokens.empty());
  big.run_text_into(reused, "短");
  check_same(reused, big.run_text("短"));
}

TEST_CASE("the heads split out of q, k, v and the raw scores are made only when read, and then are right") {
  for (bool causal : {false, true}) {
    CAPTURE(causal);
    const mha::Model model(make_config(64, 4, 2, causal));  // grouped: 2 key/value heads
    const mha::Trace trace = model.run_text("made when read");
    for (const char* name : {"q_heads", "k_heads", "v_heads", "raw_scores", "head_out"}) {
      CAPTURE(name);
      REQUIRE(trace.find(name) != nullptr);
      CHECK(trace.find(name)->pending);  // a reader of y alone never pays for them
    }
    CHECK_FALSE(trace.find("weights")->pending);
    const Tensor& q = trace.get("q");
    const Tensor& q_heads = trace.get("q_heads");
    CHECK_FALSE(trace.find("q_heads")->pending);
    const int T = static_cast<int>(q.shape[1]), D = 16, H = 4;
    for (int h = 0; h < H; ++h)
      for (int t = 0; t < T; ++t)
        for (int i = 0; i < D; ++i) CHECK(q_heads.data[(h * T + t) * D + i] == q.data[(t * H + h) * D + i]);
    // raw_scores: the scores before the mask, the same for every entry the mask keeps
    const Tensor &raw = trace.get("raw_scores"), &scores = trace.get("scores");
    for (size_t i = 0; i < raw.data.size(); ++i) {
      const size_t row = i / T % T, col = i % T;
      if (!causal || col <= row) CHECK(raw.data[i] == scores.data[i]);
      else CHECK(std::isfinite(raw.data[i]));
    }
    // head_out: each head's columns of the concat
    const Tensor &head_out = trace.get("head_out"), &concat = trace.get("concat");
    for (int h = 0; h < H; ++h)
      for (int t = 0; t < T; ++t)
        for (int i = 0; i < D; ++i) CHECK(head_out.data[(h * T + t) * D + i] == concat.data[(t * H + h) * D + i]);
  }
}

TEST_CASE("configure gives what a fresh model of the new config gives, drawing weights only when they change") {
  const std::string text = "我是秦始皇 configure";
  mha::Model model(make_config(64, 4, 0, false, 7));
  // The packing is the model's only copy of W_Q: the same storage means the weights were not drawn again.
  const auto qkv = [&] { return model.packed_weights().packed.blocks[0].attention.qkv.data.data(); };
  const float* drawn = qkv();
  const auto same_as_fresh = [&](const Config& c) {
    const mha::Trace fresh = mha::Model(c).run_text(text);
    const mha::Trace ours = model.run_text(text);
    REQUIRE(ours.names() == fresh.names());
    CHECK(ours.ids == fresh.ids);
    for (const auto& e : fresh.entries()) {
      CAPTURE(e.name);
      CHECK(ours.get(e.name).shape == e.tensor.shape);
      CHECK(ours.get(e.name).data == e.tensor.data);
    }
  };

  SUBCASE("causal on: the same weights, masked") {
    model.configure(make_config(64, 4, 0, true, 7));
    CHECK(qkv() == drawn);
    same_as_fresh(make_config(64, 4, 0, true, 7));
  }
  SUBCASE("fewer heads of the same key/value width: the same weights, split otherwise") {
    model.configure(make_config(64, 2, 0, false, 7));
    CHECK(qkv() == drawn);
    same_as_fresh(make_config(64, 2, 0, false, 7));
  }
  SUBCASE("another vocabulary: the same weights, other ids") {
    Config c = make_config(64, 4, 0, false, 7);
    c.vocab_size = 97;
    model.configure(c);
    CHECK(qkv() == drawn);
    same_as_fresh(c);
  }
  SUBCASE("another seed, d_model or key/value width: new weights") {
    for (const Config& c : {make_config(64, 4, 0, false, 8), make_config(32, 4, 0, false, 8), make_config(32, 4, 2, false, 8)}) {
      CAPTURE(c.d_model);
      CAPTURE(c.kv_heads);
      const Tensor before = model.weights().w_k;
      model.configure(c);
      same_as_fresh(c);
      CHECK(model.weights().w_k.data != before.data);
    }
  }
  SUBCASE("a bad config is an error and changes nothing") {
    const mha::Trace before = model.run_text(text);
    CHECK_THROWS_WITH_AS(model.configure(make_config(64, 3, 0, true, 7)), doctest::Contains("not divisible by heads"),
                         mha::Error);
    CHECK(model.config().heads == 4);
    CHECK_FALSE(model.config().causal);
    CHECK(model.run_text(text).get("y").data == before.get("y").data);
  }
}
