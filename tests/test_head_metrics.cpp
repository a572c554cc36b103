// Head metrics (head_metrics.h) on maps whose answer is known by hand, and the label table.
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/random.h"
#include "analysis/head_metrics.h"
#include "io/files.h"
#include "io/safetensors.h"
#include "model/stages.h"
#include "test_helpers.h"

namespace {

// A causal (T, T) map from a rule: row i puts all its weight on column pick(i).
template <typename Pick>
std::vector<float> one_hot_map(int T, const Pick& pick) {
  std::vector<float> a(static_cast<size_t>(T) * T, 0.0f);
  for (int i = 0; i < T; ++i) a[static_cast<size_t>(i) * T + pick(i)] = 1.0f;
  return a;
}

std::vector<float> uniform_causal(int T) {
  std::vector<float> a(static_cast<size_t>(T) * T, 0.0f);
  for (int i = 0; i < T; ++i)
    for (int j = 0; j <= i; ++j) a[static_cast<size_t>(i) * T + j] = 1.0f / (i + 1);
  return a;
}

std::vector<int32_t> iota_ids(int T) {
  std::vector<int32_t> ids(T);
  for (int i = 0; i < T; ++i) ids[i] = i;
  return ids;
}

// The facts head_metrics.py used for a case ({"rarity": […], "tags": [WordTag as integers], "half_line_end": […]}).
mha::TokenFacts facts_from_json(const nlohmann::json& j) {
  mha::TokenFacts facts;
  facts.rarity = j.at("rarity").get<std::vector<int32_t>>();
  for (const int tag : j.at("tags").get<std::vector<int>>()) facts.tags.push_back(static_cast<mha::WordTag>(tag));
  facts.half_line_end = j.at("half_line_end").get<std::vector<uint8_t>>();
  return facts;
}

// What a toy vocabulary says: rarity[id] = id from 3 on (0 … 2 not ranked), and the given tags and marks.
mha::TokenFacts toy_facts(int V, std::vector<mha::WordTag> tags = {}, std::vector<uint8_t> half_line_end = {}) {
  mha::TokenFacts facts;
  for (int id = 0; id < V; ++id) facts.rarity.push_back(id >= 3 ? id : -1);
  facts.tags = std::move(tags);
  facts.half_line_end = std::move(half_line_end);
  return facts;
}

}  // namespace

TEST_CASE("a pure previous-token map: previous-token 1, entropy 0, labelled previous token") {
  const int T = 6;
  const auto a = one_hot_map(T, [](int i) { return i == 0 ? 0 : i - 1; });
  const mha::HeadMetrics m = mha::analyse_layer(a.data(), 1, T, iota_ids(T), true).heads[0];
  CHECK(*m.previous_token == doctest::Approx(1.0));
  CHECK(*m.entropy == doctest::Approx(0.0));
  CHECK(*m.self == doctest::Approx(0.0));  // row 0, which can only look at itself, is not counted
  CHECK(*m.distance == doctest::Approx(1.0));
  CHECK(*m.locality == doctest::Approx(1.0));
  CHECK(m.label == "previous_token");
  CHECK_FALSE(m.induction.has_value());  // no token repeats
  CHECK_FALSE(m.duplicate_token.has_value());
}

TEST_CASE("a uniform causal map: entropy 1 and distance_normalised 1, labelled broad") {
  const int T = 7;
  const auto a = uniform_causal(T);
  const mha::HeadMetrics m = mha::analyse_layer(a.data(), 1, T, iota_ids(T), true).heads[0];
  CHECK(*m.entropy == doctest::Approx(1.0));
  CHECK(*m.distance_normalised == doctest::Approx(1.0));
  CHECK(*m.first_token == doctest::Approx((1.0 / 2 + 1.0 / 3 + 1.0 / 4 + 1.0 / 5 + 1.0 / 6 + 1.0 / 7) / 6));
  CHECK(m.label == "broad");
}

TEST_CASE("an induction map on a repeated sequence: induction 1, and duplicate-token measured apart") {
  // ids: 0 | 5 6 7 | 5 6 7; at i = 4 (5 again) the token after the earlier 5 is at 2, and so on.
  const std::vector<int32_t> ids = {0, 5, 6, 7, 5, 6, 7};
  const int T = 7, L = 3;
  const auto a = one_hot_map(T, [&](int i) { return i > L ? i - L + 1 : 0; });
  const mha::HeadMetrics m = mha::analyse_layer(a.data(), 1, T, ids, true).heads[0];
  REQUIRE(m.induction.has_value());
  CHECK(*m.induction == doctest::Approx(1.0));
  CHECK(*m.duplicate_token == doctest::Approx(0.0));  // it looks one past the duplicate, not at it
  CHECK(m.label == "induction");
}

TEST_CASE("similarity: identical heads 1, heads looking at different tokens near 0") {
  const int T = 5;
  const auto prev = one_hot_map(T, [](int i) { return i == 0 ? 0 : i - 1; });
  const auto self = one_hot_map(T, [](int i) { return i; });
  std::vector<float> three;
  for (const auto* m : {&prev, &prev, &self}) three.insert(three.end(), m->begin(), m->end());
  const mha::LayerAnalysis layer = mha::analyse_layer(three.data(), 3, T, iota_ids(T), true);
  CHECK(*layer.similarity[0][1] == doctest::Approx(1.0));
  CHECK(*layer.similarity[1][0] == doctest::Approx(1.0));
  CHECK(*layer.similarity[2][2] == doctest::Approx(1.0));
  // Rows i ≥ 1 put 0.999 + 0.001/n on different positions: JS close to 1 bit, similarity close to 0.
  CHECK(*layer.similarity[0][2] < 0.02);
  CHECK(*layer.similarity[0][2] == doctest::Approx(*layer.similarity[2][0]));
  CHECK(layer.heads[2].label == "self");
}

TEST_CASE("T = 1: every metric and the similarity are null") {
  const float a[1] = {1.0f};
  const mha::LayerAnalysis layer = mha::analyse_layer(a, 1, 1, {3}, true);
  const mha::HeadMetrics& m = layer.heads[0];
  CHECK_FALSE(m.entropy.has_value());
  CHECK_FALSE(m.self.has_value());
  CHECK_FALSE(m.previous_token.has_value());
  CHECK_FALSE(m.induction.has_value());
  CHECK_FALSE(layer.similarity[0][0].has_value());
  CHECK(m.label == "mixed");
  const nlohmann::json json = mha::analysis_to_json({layer});
  CHECK(json["layers"][0]["heads"][0]["entropy"].is_null());
  CHECK(json["layers"][0]["heads"][0]["label"] == "mixed");
}

TEST_CASE("facts with an empty list say nothing: those measures are null, and the list is not read past its end") {
  // 。a b c d e，f g h i j。: a couplet of nouns 10 … 19 between marks 3 (tagged det), read by a head that
  // looks one half-line back.
  const std::vector<int32_t> ids = {3, 10, 11, 12, 13, 14, 3, 15, 16, 17, 18, 19, 3};
  const int T = 13;
  const auto a = one_hot_map(T, [](int i) { return i >= 7 && i < 12 ? i - 6 : i; });
  std::vector<uint8_t> marks(20, 0);
  marks[3] = 1;
  std::vector<mha::WordTag> tags(20, mha::WordTag::noun);
  tags[3] = mha::WordTag::det;
  const mha::TokenFacts full = toy_facts(20, tags, marks);
  const mha::HeadMetrics m = mha::analyse_layer(a.data(), 1, T, ids, true, &full).heads[0];
  REQUIRE(m.rare_word.has_value());
  REQUIRE(m.noun_article.has_value());
  REQUIRE(m.parallel_line.has_value());
  for (const char* empty : {"rarity", "tags", "half_line_end"}) {
    CAPTURE(empty);
    mha::TokenFacts facts = full;
    if (std::string(empty) == "rarity") facts.rarity.clear();
    if (std::string(empty) == "tags") facts.tags.clear();
    if (std::string(empty) == "half_line_end") facts.half_line_end.clear();
    const mha::HeadMetrics e = mha::analyse_layer(a.data(), 1, T, ids, true, &facts).heads[0];
    CHECK(e.rare_word.has_value() == !facts.rarity.empty());
    CHECK(e.noun_article.has_value() == !facts.tags.empty());
    CHECK(e.parallel_line.has_value() == !facts.half_line_end.empty());
    CHECK(e.parallel_line_chance.has_value() == !facts.half_line_end.empty());
  }
}

TEST_CASE("rare word: the strongest key on the rarest token in view; a tie for strongest shares the row") {
  // ids 1 2 9 5 9: row 1 sees only unranked ids (skipped); the rarest in view is the 9 at 2, then both 9s.
  const std::vector<int32_t> ids = {1, 2, 9, 5, 9};
  const int T = 5;
  const mha::TokenFacts facts = toy_facts(10);
  std::vector<float> a(T * T, 0.0f);
  a[0] = 1, a[1 * T + 0] = 1;
  a[2 * T + 2] = 1;  // on the rarest: 1 (chance 1/3)
  a[3 * T + 3] = 1;  // on the 5: 0 (chance 1/4)
  SUBCASE("argmax on the rarest, which comes twice") {
    a[4 * T + 1] = 0.2f, a[4 * T + 4] = 0.8f;  // on the second 9: 1 (chance 2/5)
    const mha::HeadMetrics m = mha::analyse_layer(a.data(), 1, T, ids, true, &facts).heads[0];
    CHECK(*m.rare_word == doctest::Approx((1 + 0 + 1) / 3.0));
    CHECK(*m.rare_word_chance == doctest::Approx((1 / 3.0 + 1 / 4.0 + 2 / 5.0) / 3));
  }
  SUBCASE("a tie between the rarest and another key counts a half") {
    a[4 * T + 3] = 0.4f, a[4 * T + 4] = 0.4f, a[4 * T + 0] = 0.2f;
    const mha::HeadMetrics m = mha::analyse_layer(a.data(), 1, T, ids, true, &facts).heads[0];
    CHECK(*m.rare_word == doctest::Approx((1 + 0 + 0.5) / 3.0));
  }
  SUBCASE("uniform attention scores its chance, every key tied") {
    const auto u = uniform_causal(T);
    const mha::HeadMetrics m = mha::analyse_layer(u.data(), 1, T, ids, true, &facts).heads[0];
    CHECK(*m.rare_word == doctest::Approx(*m.rare_word_chance));
  }
  SUBCASE("nothing ranked, or no vocabulary: null") {
    const mha::TokenFacts none = toy_facts(3);
    const mha::HeadMetrics m = mha::analyse_layer(a.data(), 1, T, {1, 2, 0, 1, 2}, true, &none).heads[0];
    CHECK_FALSE(m.rare_word.has_value());
    CHECK_FALSE(m.rare_word_chance.has_value());
    const mha::HeadMetrics toy = mha::analyse_layer(a.data(), 1, T, ids, true).heads[0];
    CHECK_FALSE(toy.rare_word.has_value());
  }
}

TEST_CASE("parallel line: a 5 + 5 couplet, the row predicting each character of the second half-line on its place in the first") {
  // 。秦川雄帝宅，函谷壮皇居。 as the mark 3, ids 10 … 14, 3, 15 … 19, 3: the rows that predict 函 … 居
  // (6 … 10, the mark's first) read i − 5 (predicting 函, ， on 秦).
  std::vector<uint8_t> marks(20, 0);
  marks[3] = 1;
  const mha::TokenFacts facts = toy_facts(20, {}, marks);
  const auto back = [](int T, int offset, int first) {  // rows from `first` on read i − offset, the rest row 0
    return one_hot_map(T, [=](int i) { return i >= first && i < T - 1 ? i - offset : 0; });
  };
  SUBCASE("one mark between") {
    const std::vector<int32_t> ids = {3, 10, 11, 12, 13, 14, 3, 15, 16, 17, 18, 19, 3};
    const auto a = back(13, 5, 6);
    const mha::HeadMetrics m = mha::analyse_layer(a.data(), 1, 13, ids, true, &facts).heads[0];
    CHECK(*m.parallel_line == doctest::Approx(1.0));
    CHECK(*m.parallel_line_chance == doctest::Approx((1 / 7.0 + 1 / 8.0 + 1 / 9.0 + 1 / 10.0 + 1 / 11.0) / 5));
    // the mark's row 6 reads the token after the mark's earlier occurrence (induction 0.5 over rows 6
    // and 12), but M_i holds 1 of 7 keys and 2 of 13: 3.4× its chance, short of the 5× that names it
    CHECK(*m.induction == doctest::Approx(0.5));
    CHECK(*m.induction_chance == doctest::Approx((1 / 7.0 + 2 / 13.0) / 2));
    CHECK(m.label == "parallel_line");
  }
  SUBCASE("a head on the character's own parallel, one row late, is not one") {
    const std::vector<int32_t> ids = {3, 10, 11, 12, 13, 14, 3, 15, 16, 17, 18, 19, 3};
    const auto a = back(13, 6, 7);
    CHECK(*mha::analyse_layer(a.data(), 1, 13, ids, true, &facts).heads[0].parallel_line == doctest::Approx(0.0));
  }
  SUBCASE("two marks between (，\\n): the same place is one further back") {
    const std::vector<int32_t> ids = {3, 10, 11, 12, 13, 14, 3, 3, 15, 16, 17, 18, 19, 3};
    const auto a = back(14, 6, 7);
    const mha::HeadMetrics m = mha::analyse_layer(a.data(), 1, 14, ids, true, &facts).heads[0];
    CHECK(*m.parallel_line == doctest::Approx(1.0));
    CHECK(*m.parallel_line_chance == doctest::Approx((1 / 8.0 + 1 / 9.0 + 1 / 10.0 + 1 / 11.0 + 1 / 12.0) / 5));
  }
  SUBCASE("a couplet typed alone counts: no mark asked for at the text's ends") {
    const std::vector<int32_t> ids = {10, 11, 12, 13, 14, 3, 15, 16, 17, 18, 19};
    const auto a = back(11, 5, 5);
    CHECK(*mha::analyse_layer(a.data(), 1, 11, ids, true, &facts).heads[0].parallel_line == doctest::Approx(1.0));
  }
  SUBCASE("no row: lengths 4 and 6, three marks between") {
    const auto a = back(15, 6, 7);
    const std::map<std::string, std::vector<int32_t>> cases = {
        {"4 then 6", {3, 10, 11, 12, 13, 3, 14, 15, 16, 17, 18, 19, 3, 3, 3}},
        {"three marks", {3, 10, 11, 12, 13, 14, 3, 3, 3, 15, 16, 17, 18, 19, 3}},
    };
    for (const auto& one : cases) {
      const auto& name = one.first;
      const auto& ids = one.second;
      CAPTURE(name);
      CHECK_FALSE(mha::analyse_layer(a.data(), 1, 15, ids, true, &facts).heads[0].parallel_line.has_value());
    }
  }
}

TEST_CASE("noun → article, noun → adjective, verb → subject: the weight on the nearest such token within reach") {
  // the big dog barks and she sees a cat: dets 4, adj 5, nouns 6, verbs 7, other 8, subject pronoun 9.
  using mha::WordTag;
  std::vector<WordTag> tags(10, WordTag::other);
  tags[4] = WordTag::det, tags[5] = WordTag::adj, tags[6] = WordTag::noun, tags[7] = WordTag::verb, tags[9] = WordTag::pron_subj;
  const mha::TokenFacts facts = toy_facts(10, tags);
  const std::vector<int32_t> ids = {4, 5, 6, 7, 8, 9, 7, 4, 6};
  const int T = 9;
  // dog → the, barks → dog, sees → she (nearer than dog), cat → a; the rest on themselves.
  std::map<int, int> pick = {{2, 0}, {3, 2}, {6, 5}, {8, 7}};
  const auto a = one_hot_map(T, [&](int i) { return pick.count(i) ? pick[i] : i; });
  const mha::HeadMetrics m = mha::analyse_layer(a.data(), 1, T, ids, true, &facts).heads[0];
  CHECK(*m.noun_article == doctest::Approx(1.0));
  CHECK(*m.noun_article_chance == doctest::Approx((1 / 3.0 + 1 / 9.0) / 2));
  CHECK(*m.verb_subject == doctest::Approx(1.0));
  CHECK(*m.verb_subject_chance == doctest::Approx((1 / 4.0 + 1 / 7.0) / 2));
  // Only dog has an adjective within three (big); cat's nearest is none: one row, and the head is not on it.
  CHECK(*m.noun_adjective == doctest::Approx(0.0));
  CHECK(*m.noun_adjective_chance == doctest::Approx(1 / 3.0));
  SUBCASE("a subject further back than the nearest counts nothing") {
    pick[6] = 2;  // sees → dog
    const auto b = one_hot_map(T, [&](int i) { return pick.count(i) ? pick[i] : i; });
    CHECK(*mha::analyse_layer(b.data(), 1, T, ids, true, &facts).heads[0].verb_subject == doctest::Approx(0.5));
  }
  SUBCASE("characters have no tags: null") {
    const mha::TokenFacts chars = toy_facts(10);
    const mha::HeadMetrics c = mha::analyse_layer(a.data(), 1, T, ids, true, &chars).heads[0];
    CHECK_FALSE(c.noun_article.has_value());
    CHECK_FALSE(c.verb_subject_chance.has_value());
  }
}

TEST_CASE("chance: mean 1 / n_i over each measure's rows, what uniform attention scores") {
  SUBCASE("uniform causal: previous and first token at their chance, no vocabulary needed") {
    const int T = 5;
    const auto a = uniform_causal(T);
    const mha::HeadMetrics m = mha::analyse_layer(a.data(), 1, T, iota_ids(T), true).heads[0];
    const double chance = (1 / 2.0 + 1 / 3.0 + 1 / 4.0 + 1 / 5.0) / 4;
    CHECK(*m.previous_token_chance == doctest::Approx(chance));
    CHECK(*m.first_token_chance == doctest::Approx(chance));
    CHECK(*m.self_chance == doctest::Approx(chance));
    CHECK(*m.previous_token == doctest::Approx(chance));
    CHECK(*m.self == doctest::Approx(chance));
  }
  SUBCASE("an offset-2 head: the offset weight's rows are i ≥ 2") {
    const int T = 12;
    const auto a = one_hot_map(T, [](int i) { return i >= 2 ? i - 2 : 0; });
    const mha::HeadMetrics m = mha::analyse_layer(a.data(), 1, T, iota_ids(T), true).heads[0];
    CHECK(*m.offset == 2);
    CHECK(*m.offset_weight == doctest::Approx(1.0));
    const double chance = (1 / 3.0 + 1 / 4.0 + 1 / 5.0 + 1 / 6.0 + 1 / 7.0 + 1 / 8.0 + 1 / 9.0 + 1 / 10.0 + 1 / 11.0 + 1 / 12.0) / 10;
    CHECK(*m.offset_weight_chance == doctest::Approx(chance));
    CHECK(m.label == "positional");  // 1 ≥ 0.25 and ≥ 5 × 0.160; first_token 2/11
  }
  SUBCASE("bidirectional: every row sees all T") {
    const int T = 4;
    const std::vector<float> a(T * T, 0.25f);
    const mha::HeadMetrics m = mha::analyse_layer(a.data(), 1, T, iota_ids(T), false).heads[0];
    CHECK(*m.previous_token_chance == doctest::Approx(0.25));
    CHECK(*m.offset_weight_chance == doctest::Approx(0.25));
  }
}

TEST_CASE("offset profile: mean a[i][i − k] for each k with a row, from k = 0") {
  const int T = 4;
  const auto a = one_hot_map(T, [](int i) { return i == 0 ? 0 : i - 1; });
  const mha::HeadMetrics m = mha::analyse_layer(a.data(), 1, T, iota_ids(T), true).heads[0];
  REQUIRE(m.offset_profile.size() == 4);  // k = 0 … T − 1: no row reaches further
  CHECK(m.offset_profile[0] == doctest::Approx(0.25));  // row 0 on itself
  CHECK(m.offset_profile[1] == doctest::Approx(1.0));
  CHECK(m.offset_profile[2] == doctest::Approx(0.0));
  const auto u = uniform_causal(40);
  CHECK(mha::analyse_layer(u.data(), 1, 40, iota_ids(40), true).heads[0].offset_profile.size() == mha::kOffsetProfile + 1);
}

TEST_CASE("a typed label needs 5× its chance as well as its threshold") {
  mha::HeadMetrics m;
  m.parallel_line = 0.2, m.parallel_line_chance = 0.04;  // 5× chance
  CHECK(std::string(mha::head_label(m)) == "parallel_line");
  m.parallel_line_chance = 0.2 / 3;  // 3× chance
  CHECK(std::string(mha::head_label(m)) == "mixed");
  m.parallel_line_chance.reset();  // no chance to compare with: no label
  CHECK(std::string(mha::head_label(m)) == "mixed");
}

TEST_CASE("a head that keeps to one place needs twice its chance: a few tokens are too few to name it") {
  // Over four tokens a causal row sees 2, 3 or 4 keys: 0.36 on any one place is what uniform attention
  // gives. Each head here puts 0.6 on its place and the rest on the others; at T = 16 the same is a name.
  const auto leaning = [](int T, const auto& place) {
    std::vector<float> a(static_cast<size_t>(T) * T, 0.0f);
    a[0] = 1.0f;
    for (int i = 1; i < T; ++i)
      for (int j = 0; j <= i; ++j) a[static_cast<size_t>(i) * T + j] = j == place(i) ? 0.6f : 0.4f / static_cast<float>(i);
    return a;
  };
  const auto previous = [](int i) { return i - 1; };
  const auto itself = [](int i) { return i; };
  const auto first = [](int) { return 0; };
  for (const int T : {4, 16}) {
    CAPTURE(T);
    const double chance = [&] {
      double c = 0;
      for (int i = 1; i < T; ++i) c += 1.0 / (i + 1);
      return c / (T - 1);
    }();
    const auto p = leaning(T, previous), s = leaning(T, itself), f = leaning(T, first);
    const mha::HeadMetrics mp = mha::analyse_layer(p.data(), 1, T, iota_ids(T), true).heads[0];
    const mha::HeadMetrics ms = mha::analyse_layer(s.data(), 1, T, iota_ids(T), true).heads[0];
    const mha::HeadMetrics mf = mha::analyse_layer(f.data(), 1, T, iota_ids(T), true).heads[0];
    CHECK(*mp.previous_token == doctest::Approx(0.6));
    CHECK(*ms.self == doctest::Approx(0.6));
    CHECK(*mf.first_token == doctest::Approx(0.6));
    CHECK(*ms.self_chance == doctest::Approx(chance));
    const bool named = 0.6 >= 2 * chance;  // 0.36 × 2 at T = 4; 0.16 × 2 at T = 16
    CHECK(named == (T == 16));
    CHECK((mp.label == "previous_token") == named);
    CHECK((ms.label == "self") == named);
    CHECK((mf.label == "first_token") == named);
  }
  // all of each row on one place is a name from four tokens on (1 ≥ 2 × 0.36)
  const auto pure = one_hot_map(4, [](int i) { return i; });
  CHECK(mha::analyse_layer(pure.data(), 1, 4, iota_ids(4), true).heads[0].label == "self");
}

TEST_CASE("induction beside its chance: a word repeated in a short sentence is not an induction head") {
  // "the cat sat the dog the": the rows of the second and third "the" (3, 5) have M_i = {1} and {1, 4},
  // the nouns after the earlier "the"; a head that reads them all reads nouns as much as it copies
  const std::vector<int32_t> ids = {1, 2, 3, 1, 4, 1};
  const int T = 6;
  const auto a = one_hot_map(T, [](int i) { return i == 3 ? 1 : i == 5 ? 4 : 0; });
  const mha::HeadMetrics m = mha::analyse_layer(a.data(), 1, T, ids, true).heads[0];
  CHECK(*m.induction == doctest::Approx(1.0));
  CHECK(*m.induction_chance == doctest::Approx((1 / 4.0 + 2 / 6.0) / 2));  // uniform attention's weight on M_i
  CHECK(m.label != "induction");
  // the same head on a sequence said twice, where M_i is one key of many, is one
  std::vector<int32_t> twice;
  for (int k = 0; k < 2; ++k)
    for (int32_t id = 10; id < 20; ++id) twice.push_back(id);
  const auto b = one_hot_map(20, [](int i) { return i >= 10 ? i - 9 : 0; });
  const mha::HeadMetrics n = mha::analyse_layer(b.data(), 1, 20, twice, true).heads[0];
  CHECK(*n.induction == doctest::Approx(1.0));
  CHECK(n.label == "induction");
  CHECK(n.measure->chance.has_value());
}

TEST_CASE("labels follow the table, in its order") {
  mha::HeadMetrics m;
  m.previous_token = 0.6, m.previous_token_chance = 0.1, m.induction = 0.9, m.induction_chance = 0.1, m.entropy = 0.95;
  CHECK(std::string(mha::head_label(m)) == "previous_token");  // first rule that holds wins
  m.previous_token = 0.4;
  CHECK(std::string(mha::head_label(m)) == "induction");
  m.induction_chance = 0.2;  // 4.5×: a short sentence's repeated "the" (the test case above)
  CHECK(std::string(mha::head_label(m)) == "broad");
  m.induction_chance = 0.1;
  m.induction = 0.1;
  CHECK(std::string(mha::head_label(m)) == "broad");
  m.entropy = 0.5;
  CHECK(std::string(mha::head_label(m)) == "mixed");
  CHECK(mha::head_label_rules().size() == 11);
}

TEST_CASE("a head's strongest type is the measure furthest above its chance, named or not") {
  mha::HeadMetrics m;
  CHECK(mha::strongest_type(m) == nullptr);  // nothing measured
  m.previous_token = 0.3, m.previous_token_chance = 0.1;  // 3×
  m.rare_word = 0.174, m.rare_word_chance = 0.0354;       // 4.9×: short of the 5× that names a rare-word head
  m.entropy = 0.5, m.induction = 0.45;                    // no chance: never the strongest type
  CHECK(std::string(mha::head_label(m)) == "mixed");
  CHECK(std::string(mha::strongest_type(m)) == "rare_word");
  m.offset = 2, m.offset_weight = 0.8, m.offset_weight_chance = 0.1;  // 8×: the positional rule reads it
  CHECK(std::string(mha::strongest_type(m)) == "positional");
  m.parallel_line = 0.4, m.parallel_line_chance = 0.05;  // 8× as well: the earlier rule wins the tie
  CHECK(std::string(mha::strongest_type(m)) == "parallel_line");
  m = mha::HeadMetrics{};
  m.first_token = 0, m.first_token_chance = 0.1;  // a measure of 0 is no type
  CHECK(mha::strongest_type(m) == nullptr);
}

TEST_CASE("the analysis JSON carries the label table, so the page reads the thresholds rather than copying them") {
  const nlohmann::json json = mha::analysis_to_json({});
  REQUIRE(json["labels"].size() == mha::head_label_rules().size());
  CHECK(json["labels"][0] == nlohmann::json({{"label", "previous_token"}, {"metric", "previous_token"}, {"at_least", 0.5}, {"times_chance", 2}}));
  CHECK(json["labels"].back() == nlohmann::json({{"label", "broad"}, {"metric", "entropy"}, {"at_least", 0.9}, {"times_chance", 0}}));
  CHECK(json["labels"][2] == nlohmann::json({{"label", "parallel_line"}, {"metric", "parallel_line"}, {"at_least", 0.15}, {"times_chance", 5}}));
}

TEST_CASE("every metric matches the numpy reference on the reference traces, to 1e-5") {
  const std::string path = mha_test::reference_dir() + "/head_metrics.expected.json";
  std::vector<uint8_t> bytes;
  try {
    bytes = mha::read_file(path);
  } catch (const mha::Error&) {
    FAIL("missing " << path << "; regenerate with: /usr/bin/python3 tests/reference/head_metrics.py");
  }
  const nlohmann::json expected = nlohmann::json::parse(bytes.begin(), bytes.end());
  // Per case and layer, each head's label: its metrics against head_label_rules(), checked by hand
  // (pytorch_causal head 1: first_token 0.596; tiny_attn_only: entropy 0.906 … 0.943 is broad, 0.831, 0.881 not).
  const std::map<std::string, std::vector<std::vector<std::string>>> expected_labels = {
      {"pytorch_causal", {{"mixed", "first_token", "mixed", "mixed", "mixed", "mixed", "mixed", "mixed"}}},
      {"pytorch_mha", {{"mixed", "mixed", "mixed", "mixed"}}},
      // synthetic_poem: a random head (entropy 0.60), uniform attention (entropy 1), and the head that reads one
      // half-line back (parallel_line 1 against chance 0.041; previous_token 0.02, induction 0).
      {"synthetic_poem", {{"mixed", "broad", "parallel_line"}}},
      // synthetic_words: random, then peaked on the rarest id (rare_word 0.44 ≥ 5 × 0.057; previous_token 0.11,
      // induction 0.14, noun_article 0.14 < 0.3, verb_subject 0.14 < 0.3), then uniform.
      {"synthetic_words", {{"mixed", "rare_word", "broad"}}},
      {"tiny_attn_only", {{"broad", "broad", "broad", "broad"}, {"broad", "broad", "mixed", "mixed"}}},
      {"tiny_gpt2", {{"mixed", "mixed", "mixed", "mixed"}, {"mixed", "mixed", "mixed", "mixed"}}},
  };
  REQUIRE(expected["format_version"] == "1");
  int compared = 0;
  for (const auto& item : expected["cases"].items()) {
    const std::string name = item.key();
    const nlohmann::json& c = item.value();
    CAPTURE(name);
    const std::vector<int32_t> ids = c["ids"].get<std::vector<int32_t>>();
    const bool causal = c["causal"].get<bool>();
    const mha::TokenFacts facts = facts_from_json(c["facts"]);
    const size_t layers = c["layers"].size();
    for (size_t l = 0; l < layers; ++l) {
      CAPTURE(l);
      // A trace's weights, or (the synthetic cases) the map the file keeps: (heads, T, T).
      std::vector<float> weights;
      int H = 0, T = 0;
      if (c.contains("weights")) {
        const auto w = c["weights"].get<std::vector<std::vector<std::vector<float>>>>();
        H = static_cast<int>(w.size()), T = static_cast<int>(w.at(0).size());
        for (const auto& head : w)
          for (const auto& row : head) weights.insert(weights.end(), row.begin(), row.end());
        REQUIRE(weights.size() == static_cast<size_t>(H) * T * T);
      } else {
        const std::vector<uint8_t> trace_bytes = mha::read_file(mha_test::reference_dir() + "/" + name + ".expected.safetensors");
        const mha::SafetensorsFile trace(trace_bytes.data(), trace_bytes.size());
        const mha::Tensor w = trace.read_float(layers > 1 || trace.has("layers.0.weights") ? mha::layer_name(static_cast<int>(l), "weights") : "weights");
        H = static_cast<int>(w.shape[1]), T = static_cast<int>(w.shape[2]);
        weights.assign(w.ptr(), w.ptr() + static_cast<size_t>(H) * T * T);
      }
      const nlohmann::json ours = mha::analysis_to_json({mha::analyse_layer(weights.data(), H, T, ids, causal, &facts)})["layers"][0];
      const nlohmann::json& want = c["layers"][l];
      for (int h = 0; h < H; ++h) {
        CAPTURE(h);
        // The thresholds read by hand off the reference metrics (head_metrics.py labels them the same way).
        CHECK(ours["heads"][h]["label"] == expected_labels.at(name).at(l).at(static_cast<size_t>(h)));
      }
      // The measure each name rests on: the reference's own value of its label rule's metric (a mixed
      // head's: of the type the reference finds it nearest) and of that metric's chance.
      for (int h = 0; h < H; ++h) {
        CAPTURE(h);
        const nlohmann::json& w = want["heads"][h];
        const nlohmann::json& measure = ours["heads"][h]["measure"];
        const nlohmann::json& type = w["label"] == "mixed" ? w["strongest"] : w["label"];
        if (type.is_null()) {
          CHECK(measure.is_null());
          continue;
        }
        REQUIRE(measure.is_object());
        CHECK(measure["type"] == type);
        std::string metric;
        for (const mha::LabelRule& rule : mha::head_label_rules())
          if (type == rule.id) metric = rule.metric;
        CHECK(measure["metric"] == metric);
        CHECK(measure["value"].get<double>() == doctest::Approx(w[metric].get<double>()).epsilon(1e-5));
        const nlohmann::json& chance = w.contains(metric + "_chance") ? w[metric + "_chance"] : nlohmann::json(nullptr);
        REQUIRE(measure["chance"].is_null() == chance.is_null());
        if (!chance.is_null()) CHECK(measure["chance"].get<double>() == doctest::Approx(chance.get<double>()).epsilon(1e-5));
        ++compared;
      }
      for (int h = 0; h < H; ++h)
        for (const auto& item : want["heads"][h].items()) {
          const std::string metric = item.key();
          const nlohmann::json& value = item.value();
          CAPTURE(h);
          CAPTURE(metric);
          const nlohmann::json& got = ours["heads"][h][metric];
          if (metric == "label" || metric == "strongest") {  // in a file made after head_metrics.py learnt them
            CHECK(got == value);
            continue;
          }
          if (value.is_array()) {  // offset_profile
            REQUIRE(got.size() == value.size());
            for (size_t k = 0; k < value.size(); ++k) {
              CAPTURE(k);
              CHECK(got[k].get<double>() == doctest::Approx(value[k].get<double>()).epsilon(1e-5));
            }
            ++compared;
            continue;
          }
          REQUIRE(got.is_null() == value.is_null());
          if (!value.is_null()) CHECK(got.get<double>() == doctest::Approx(value.get<double>()).epsilon(1e-5));
          ++compared;
        }
      for (int h = 0; h < H; ++h)
        for (int g = 0; g < H; ++g) CHECK(ours["similarity"][h][g].get<double>() == doctest::Approx(want["similarity"][h][g].get<double>()).epsilon(1e-5));
    }
  }
  CHECK(compared > 500);
}

TEST_CASE("label cells: the mean over rows of a head's weight on its label's cells is that label's measure, for every label") {
  // A toy text with everything: dets 4, adjectives 5, nouns 6, verbs 7, subject pronoun 9, marks 3, and
  // a 5 + 5 couplet whose second half repeats the first (induction rows) — under random causal weights.
  using mha::WordTag;
  std::vector<WordTag> tags(20, WordTag::other);
  tags[4] = WordTag::det, tags[5] = WordTag::adj, tags[6] = WordTag::noun, tags[7] = WordTag::verb, tags[9] = WordTag::pron_subj;
  std::vector<uint8_t> marks(20, 0);
  marks[3] = 1;
  const mha::TokenFacts facts = toy_facts(20, tags, marks);
  const std::vector<int32_t> ids = {10, 4, 5, 6, 7, 3, 9, 7, 4, 6, 11, 3, 4, 5, 6, 7, 3, 9, 7, 4, 6, 12};
  const int T = static_cast<int>(ids.size());
  mha::Rng rng(7);
  std::vector<float> a(static_cast<size_t>(T) * T, 0.0f);
  for (int i = 0; i < T; ++i) {
    double sum = 0;
    for (int j = 0; j <= i; ++j) sum += a[static_cast<size_t>(i) * T + j] = std::exp(rng.uniform(-2.0f, 2.0f));
    for (int j = 0; j <= i; ++j) a[static_cast<size_t>(i) * T + j] = static_cast<float>(a[static_cast<size_t>(i) * T + j] / sum);
  }
  const mha::HeadMetrics m = mha::analyse_layer(a.data(), 1, T, ids, true, &facts).heads[0];
  const auto rows_of = [&](const std::string& label) {
    std::map<int, std::pair<double, int>> rows;  // row -> (weight on its cells, how many cells)
    int last = -1;
    for (const mha::TypeCell& c : mha::label_cells(label, m.offset, T, ids, &facts)) {
      CHECK(c.row >= last);  // rows in order
      CHECK((c.key >= 0 && c.key <= c.row));
      last = c.row;
      rows[c.row].first += a[static_cast<size_t>(c.row) * T + c.key];
      rows[c.row].second += 1;
    }
    return rows;
  };
  const auto mean_weight = [&](const std::string& label) {
    const auto rows = rows_of(label);
    REQUIRE_FALSE(rows.empty());
    double sum = 0;
    for (const auto& [row, cells] : rows) sum += cells.first;
    return sum / static_cast<double>(rows.size());
  };
  CHECK(mean_weight("previous_token") == doctest::Approx(*m.previous_token));
  CHECK(mean_weight("self") == doctest::Approx(*m.self));
  CHECK(mean_weight("first_token") == doctest::Approx(*m.first_token));
  CHECK(mean_weight("positional") == doctest::Approx(*m.offset_weight));
  CHECK(mean_weight("induction") == doctest::Approx(*m.induction));
  CHECK(mean_weight("noun_article") == doctest::Approx(*m.noun_article));
  CHECK(mean_weight("noun_adjective") == doctest::Approx(*m.noun_adjective));
  CHECK(mean_weight("verb_subject") == doctest::Approx(*m.verb_subject));
  CHECK(mean_weight("parallel_line") == doctest::Approx(*m.parallel_line));
  // Rare word counts the strongest key, not the weight: its cells are the rarest tokens in view, whose
  // share of a row's n_i is the chance.
  double chance = 0;
  const auto rare = rows_of("rare_word");
  for (const auto& [row, cells] : rare) chance += static_cast<double>(cells.second) / (row + 1);
  CHECK(chance / static_cast<double>(rare.size()) == doctest::Approx(*m.rare_word_chance));
  CHECK(mha::label_cells("broad", m.offset, T, ids, &facts).empty());
  CHECK(mha::label_cells("mixed", m.offset, T, ids, &facts).empty());
  CHECK(mha::label_cells("noun_article", m.offset, T, ids, nullptr).empty());
}

TEST_CASE("a head carries the cells of its own label, and the JSON says them") {
  const int T = 5;
  const auto a = one_hot_map(T, [](int i) { return i == 0 ? 0 : i - 1; });
  const std::vector<mha::LayerAnalysis> layers = {mha::analyse_layer(a.data(), 1, T, iota_ids(T), true)};
  const mha::HeadMetrics& m = layers[0].heads[0];
  REQUIRE(m.label == "previous_token");
  REQUIRE(m.cells.size() == 4);
  for (int i = 1; i < T; ++i) CHECK((m.cells[i - 1].row == i && m.cells[i - 1].key == i - 1));
  const nlohmann::json j = mha::analysis_to_json(layers);
  CHECK(j["layers"][0]["heads"][0]["cells"] == nlohmann::json::parse("[[1,0],[2,1],[3,2],[4,3]]"));
  CHECK(mha::mean_analysis({layers, layers})[0].heads[0].cells.empty());
}

TEST_CASE("a mean over texts takes the strongest of the mean stripes: a whole offset, a weight one stripe has") {
  // Two texts look 2 back, one 3 back: the mean of their offsets would be i − 2.33 at weight 1.
  const int T = 12;
  const auto two_back = one_hot_map(T, [](int i) { return i < 2 ? 0 : i - 2; });
  const auto three_back = one_hot_map(T, [](int i) { return i < 3 ? 0 : i - 3; });
  const auto analysis = [&](const std::vector<float>& a) {
    return std::vector<mha::LayerAnalysis>{mha::analyse_layer(a.data(), 1, T, iota_ids(T), true)};
  };
  const std::vector<mha::LayerAnalysis> two = analysis(two_back), three = analysis(three_back);
  REQUIRE(*two[0].heads[0].offset == 2);
  REQUIRE(*three[0].heads[0].offset == 3);
  const mha::HeadMetrics m = mha::mean_analysis({two, two, three})[0].heads[0];
  // s_2 is 1 on both two-back texts and 1/10 on the three-back one (row 2 reads position 0 = 2 − 2);
  // s_3 is 0, 0 and 1.
  CHECK(*m.offset == 2);
  CHECK(*m.offset_weight == doctest::Approx((1 + 1 + 0.1) / 3));
  double chance = 0;
  for (int i = 2; i < T; ++i) chance += 1.0 / (i + 1);
  CHECK(*m.offset_weight_chance == doctest::Approx(chance / (T - 2)));
  CHECK(*two[0].heads[0].offset_weight_chance == doctest::Approx(chance / (T - 2)));
  // the mean of one text is that text's
  const mha::HeadMetrics alone = mha::mean_analysis({three})[0].heads[0];
  CHECK(*alone.offset == 3);
  CHECK(*alone.offset_weight == doctest::Approx(*three[0].heads[0].offset_weight));
  CHECK(*alone.offset_weight_chance == doctest::Approx(*three[0].heads[0].offset_weight_chance));
}
