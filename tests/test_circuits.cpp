// Circuits and activation patching (core/analysis/circuits.h, patching.h): the eigenvalue solver on
// matrices whose eigenvalues are known; every number against the float64 PyTorch reference
// (tests/reference/make_circuits_reference.py) on tiny_gpt2 and the shipped induction model; a head's
// own z patched into its own run changes nothing, bit for bit; the induction circuit of the shipped
// model in numbers; and the bad requests, each its error.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <string>

#include "analysis/circuits.h"
#include "analysis/eigenvalues.h"
#include "analysis/head_metrics.h"
#include "analysis/patching.h"
#include "base/error.h"
#include "io/model_file.h"
#include "io/safetensors.h"
#include "test_helpers.h"

namespace {

using mha_test::read_or_fail;

const char* const kRegenerate = "regenerate with: /usr/bin/python3 tests/reference/make_circuits_reference.py";
const std::vector<int32_t> kClean = {0, 5, 9, 23, 7, 5, 9, 23}, kCorrupt = {0, 5, 9, 23, 11, 5, 9, 23};

mha::Model load_model(const std::string& path) {
  const auto bytes = read_or_fail(path, "it is committed with the repository");
  const mha::SafetensorsFile file(bytes.data(), bytes.size());
  return mha::Model::from_model_file(bytes.data(), bytes.size(), mha::parse_layout(mha::guess_layout(file)), 0);
}
std::string induction_path() { return mha_test::models_dir() + "/induction.safetensors"; }
std::string tiny_gpt2_path() { return mha_test::reference_dir() + "/tiny_gpt2.model.safetensors"; }

std::vector<int32_t> to_ids(const std::vector<int64_t>& v) { return std::vector<int32_t>(v.begin(), v.end()); }

// max |actual − expected| / max |expected|, over the whole tensor (style: never one float at a time)
double relative_error(const std::vector<double>& actual, const mha::Tensor& expected) {
  REQUIRE(actual.size() == expected.data.size());
  double diff = 0, scale = 0;
  for (size_t i = 0; i < actual.size(); ++i) {
    diff = std::max(diff, std::fabs(actual[i] - expected.data[i]));
    scale = std::max(scale, std::fabs(static_cast<double>(expected.data[i])));
  }
  return diff / scale;
}

std::vector<double> flat(const std::vector<std::vector<double>>& rows) {
  std::vector<double> out;
  for (const auto& r : rows) out.insert(out.end(), r.begin(), r.end());
  return out;
}

}  // namespace

TEST_CASE("eigenvalues: known spectra, and the sums every spectrum keeps") {
  const auto sorted = [](std::vector<std::complex<double>> e) {
    std::sort(e.begin(), e.end(), [](auto a, auto b) { return a.real() != b.real() ? a.real() < b.real() : a.imag() < b.imag(); });
    return e;
  };
  SUBCASE("a rotation: ±i") {
    const auto e = sorted(mha::eigenvalues({0, -1, 1, 0}, 2));
    CHECK(e[0].real() == doctest::Approx(0).epsilon(1e-12));
    CHECK(e[0].imag() == doctest::Approx(-1).epsilon(1e-12));
    CHECK(e[1].imag() == doctest::Approx(1).epsilon(1e-12));
  }
  SUBCASE("the companion matrix of (x − 1)(x − 2)(x − 3)(x² + 4)") {
    // x⁵ − 6x⁴ + 15x³ − 30x² + 44x − 24
    const std::vector<double> c = {6, -15, 30, -44, 24};
    std::vector<double> a(25, 0.0);
    for (int j = 0; j < 5; ++j) a[j] = c[j];
    for (int i = 1; i < 5; ++i) a[i * 5 + i - 1] = 1;
    const auto e = sorted(mha::eigenvalues(a, 5));
    const std::vector<std::complex<double>> expected = {{0, -2}, {0, 2}, {1, 0}, {2, 0}, {3, 0}};
    for (size_t i = 0; i < 5; ++i) {
      CHECK(e[i].real() == doctest::Approx(expected[i].real()).epsilon(1e-9));
      CHECK(std::fabs(e[i].imag() - expected[i].imag()) < 1e-9);
    }
  }
  SUBCASE("1 × 1 and an empty matrix") {
    CHECK(mha::eigenvalues({-3.5}, 1).at(0) == std::complex<double>(-3.5, 0));
    CHECK(mha::eigenvalues({}, 0).empty());
  }
  for (const int n : {3, 16, 40}) {
    CAPTURE(n);
    // A random matrix: Σ λ = tr A and Σ λ² = tr A²
    const mha::Tensor r = mha_test::random_tensor({n, n}, 11 + n);
    const std::vector<double> a(r.data.begin(), r.data.end());
    std::complex<double> sum = 0, squares = 0;
    for (const auto& e : mha::eigenvalues(a, n)) sum += e, squares += e * e;
    double trace = 0, trace2 = 0;
    for (int i = 0; i < n; ++i) {
      trace += a[i * n + i];
      for (int k = 0; k < n; ++k) trace2 += a[i * n + k] * a[k * n + i];
    }
    CHECK(sum.real() == doctest::Approx(trace).epsilon(1e-10));
    CHECK(std::fabs(sum.imag()) < 1e-10);
    CHECK(squares.real() == doctest::Approx(trace2).epsilon(1e-10));
    CHECK(std::fabs(squares.imag()) < 1e-9);
  }
}

TEST_CASE("circuits and patching match the float64 PyTorch reference on tiny_gpt2 and the induction model") {
  const auto bytes = read_or_fail(mha_test::reference_dir() + "/circuits.expected.safetensors", kRegenerate);
  const mha::SafetensorsFile expected(bytes.data(), bytes.size());
  // Named copies, not structured bindings: clang 14's C++17 lets no lambda (CAPTURE's, want's) capture those.
  for (const auto& model_file : {std::pair<std::string, std::string>{"induction", induction_path()}, {"tiny_gpt2", tiny_gpt2_path()}}) {
    const std::string& name = model_file.first;
    const std::string& path = model_file.second;
    CAPTURE(name);
    const auto want = [&](const char* key) { return expected.read_float(name + "." + key); };
    const auto want_ids = [&](const char* key) { return expected.read_int(name + "." + key); };
    const mha::Model model = load_model(path);
    const mha::Config& c = model.config();
    const mha::CircuitScores s = mha::circuit_scores(model);
    CHECK(relative_error(flat(s.copying), want("copying")) < 1e-4);

    const mha::Tensor composition = want("composition");  // (3, L, H, L, H)
    std::vector<double> ours, theirs;
    for (const mha::CompositionScore& e : s.composition) {
      REQUIRE(e.from_layer < e.to_layer);
      ours.push_back(e.score);
      const size_t at = (((static_cast<size_t>(e.mode) * c.layers + e.from_layer) * c.heads + e.from_head) * c.layers + e.to_layer) * c.heads + e.to_head;
      theirs.push_back(composition.data[at]);
    }
    CHECK(static_cast<int>(ours.size()) == 3 * c.heads * c.heads * c.layers * (c.layers - 1) / 2);
    CHECK(relative_error(ours, mha::Tensor({static_cast<int64_t>(theirs.size())}, std::vector<float>(theirs.begin(), theirs.end()))) < 1e-4);
    // Monte Carlo on both sides with different generators: 32 draws against 1000, and both near 1/√d
    const mha::Tensor baseline = want("baseline");
    for (int m = 0; m < 3; ++m) {
      CHECK(s.baseline[m] == doctest::Approx(baseline.data[m]).epsilon(0.05));
      CHECK(s.baseline[m] == doctest::Approx(1 / std::sqrt(static_cast<double>(c.d_model))).epsilon(0.1));
    }

    const std::vector<int64_t> head = want_ids("head");
    const mha::HeadCircuit h = mha::head_circuit(model, to_ids(want_ids("ids")), static_cast<int>(head[0]), static_cast<int>(head[1]));
    CHECK(relative_error(h.qk_positional, want("qk_positional")) < 1e-4);
    CHECK(relative_error(h.qk_token, want("qk_token")) < 1e-4);
    CHECK(relative_error(h.ov, want("ov")) < 1e-4);
    for (size_t row = 0; row < h.ov_top.size(); ++row) {  // the first of the top is the row's largest of the whole vocabulary
      CHECK(h.ov_top[row].size() == static_cast<size_t>(mha::kOvTop));
      for (size_t t = 0; t < h.tokens.size(); ++t) CHECK(h.ov_top[row][0].second >= h.ov[row * h.tokens.size() + t]);
    }

    const mha::PatchResult p = mha::patch_activations(model, to_ids(want_ids("clean")), to_ids(want_ids("corrupt")));
    const std::vector<int64_t> answer_wrong = want_ids("answer_wrong");
    CHECK(p.answer == answer_wrong[0]);
    CHECK(p.wrong == answer_wrong[1]);
    CHECK(relative_error({p.m_clean, p.m_corrupt}, want("m")) < 1e-4);
    CHECK(relative_error(flat(p.heads), want("heads")) < 1e-4);
    CHECK(relative_error(flat(p.residual), want("residual")) < 1e-4);
  }
}

TEST_CASE("patching a run with its own activations changes nothing, bit for bit") {
  for (const std::string& path : {induction_path(), tiny_gpt2_path()}) {
    CAPTURE(path);
    const mha::Model model = load_model(path);
    const mha::Config& c = model.config();
    const mha::Trace clean = model.run_ids(kClean);
    mha::Trace patched;
    for (const auto kind : {mha::ActivationPatch::Kind::head_z, mha::ActivationPatch::Kind::resid_pre})
      for (int l = 0; l < c.layers; ++l)
        for (int i = 0; i < (kind == mha::ActivationPatch::Kind::head_z ? c.heads : static_cast<int>(kClean.size())); ++i) {
          mha::run_patched(patched, model, kClean, mha::patch_from(clean, c, kind, l, i));
          CHECK(patched.get(-1, "logits").data == clean.get(-1, "logits").data);
        }
  }
}

TEST_CASE("the shipped induction model: previous-token head → induction heads by K-composition, copying, patching") {
  const mha::Model model = load_model(induction_path());
  const mha::Config& c = model.config();
  // The heads as `mha heads` names them on a repeat of six: the previous-token head is layer 0's most
  // previous-token one (0.3 reaches the label's 0.5 too, at half 0.2's score), the induction heads layer 1's.
  const std::vector<mha::LayerAnalysis> layers = mha::analyse_trace(model.run_ids({0, 5, 9, 23, 41, 7, 12, 5, 9, 23, 41, 7, 12}), c);
  std::pair<int, int> previous{0, 0};
  std::vector<std::pair<int, int>> induction;
  for (int l = 0; l < c.layers; ++l)
    for (int h = 0; h < c.heads; ++h) {
      if (*layers[l].heads[h].previous_token > *layers[previous.first].heads[previous.second].previous_token) previous = {l, h};
      if (layers[l].heads[h].label == "induction") induction.emplace_back(l, h);
    }
  REQUIRE(previous == std::make_pair(0, 2));
  REQUIRE(induction == std::vector<std::pair<int, int>>{{1, 0}, {1, 1}, {1, 2}, {1, 3}});

  const mha::CircuitScores s = mha::circuit_scores(model);
  const auto strongest = std::max_element(s.composition.begin(), s.composition.end(),
                                          [](const auto& a, const auto& b) { return a.score < b.score; });
  INFO("strongest: " << mha::composition_mode_name(strongest->mode) << " " << strongest->from_layer << "." << strongest->from_head
                     << " -> " << strongest->to_layer << "." << strongest->to_head << " " << strongest->score);
  CHECK(strongest->mode == mha::CompositionMode::k);
  CHECK(std::make_pair(strongest->from_layer, strongest->from_head) == previous);
  CHECK(std::find(induction.begin(), induction.end(), std::make_pair(strongest->to_layer, strongest->to_head)) != induction.end());
  CHECK(strongest->score > 1.5 * s.baseline[1]);
  for (const auto& head : induction) {
    const int l = head.first, h = head.second;
    INFO("head " << l << "." << h);
    CHECK(s.copying[l][h] >= 0.9);
  }

  const mha::PatchResult p = mha::patch_activations(model, kClean, kCorrupt, 7, 11);
  double sum = 0;
  for (const auto& [l, h] : induction) sum += p.heads[l][h];
  CHECK(sum >= 0.9);
  CHECK(p.m_clean > 0);
  CHECK(p.m_corrupt < 0);
}

TEST_CASE("patching a change that leaves the first choice as it was compares the answer with the token the change raised most") {
  const mha::Model model = load_model(induction_path());
  const int V = model.config().vocab_size;
  // Changing the first token of a repeat leaves the repeat's next token the model's first choice.
  const std::vector<int32_t> clean = {0, 5, 9, 23, 41, 7, 12, 5, 9, 23, 41, 7}, corrupt = {0, 6, 9, 23, 41, 7, 12, 5, 9, 23, 41, 7};
  const mha::Trace a = model.run_ids(clean), b = model.run_ids(corrupt);
  const float* before = a.get(-1, "logits").ptr() + a.get(-1, "logits").numel() - V;
  const float* after = b.get(-1, "logits").ptr() + b.get(-1, "logits").numel() - V;
  const int32_t answer = static_cast<int32_t>(std::max_element(before, before + V) - before);
  REQUIRE(answer == static_cast<int32_t>(std::max_element(after, after + V) - after));
  int32_t raised = -1;
  for (int32_t w = 0; w < V; ++w)
    if (w != answer && (raised < 0 || double(after[w]) - before[w] > double(after[raised]) - before[raised])) raised = w;
  const mha::PatchResult p = mha::patch_activations(model, clean, corrupt);
  CHECK(p.answer == answer);
  CHECK(p.wrong == raised);
  CHECK(p.m_clean - p.m_corrupt > 0);
  // no other token makes the difference larger
  for (int32_t w = 0; w < V; ++w)
    if (w != answer) CHECK((double(before[answer]) - before[w]) - (double(after[answer]) - after[w]) <= p.m_clean - p.m_corrupt + 1e-9);
}

TEST_CASE("circuits and patching refuse what they cannot measure, each with its error") {
  const mha::Model model = load_model(induction_path());
  const auto code_of = [](const auto& fn) {
    try {
      fn();
    } catch (const mha::Error& e) {
      return e.code();
    }
    return std::string("none");
  };
  CHECK(code_of([&] { mha::patch_activations(model, kClean, {0, 5, 9}); }) == "patch_lengths_differ");
  CHECK(code_of([&] { mha::patch_activations(model, kClean, kCorrupt, 64); }) == "patch_token_outside_vocabulary");
  CHECK(code_of([&] { mha::patch_activations(model, kClean, kCorrupt, 7, -5); }) == "patch_token_outside_vocabulary");
  CHECK(code_of([&] { mha::patch_activations(model, kClean, kClean); }) == "patch_no_difference");
  CHECK(code_of([&] { mha::head_circuit(model, kClean, 2, 0); }) == "no_such_head");
  CHECK(code_of([&] { mha::head_circuit(model, {0, 64}, 1, 0); }) == "token_outside_vocabulary");
  mha::Config one;
  one.preset = mha::Preset::attn_only, one.layers = 1, one.d_model = 16, one.heads = 2, one.vocab_size = 10;
  one.max_positions = 8, one.causal = true;
  CHECK(code_of([&] { mha::circuit_scores(mha::Model(one)); }) == "composition_needs_two_layers");
  mha::Config single;
  CHECK(code_of([&] { mha::circuit_scores(mha::Model(single)); }) == "needs_blocks");
  CHECK(code_of([&] { mha::patch_activations(mha::Model(single), {1, 2}, {1, 3}); }) == "needs_blocks");
}
