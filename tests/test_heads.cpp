// What each head contributes: its write into the residual stream (head_write) sums to y; the
// gradient of the loss with respect to each head's gate matches PyTorch autograd and finite
// differences; the logit splits exactly into the embedding, each head, each MLP and the biases, as
// numpy splits it (tests/reference/make_model_reference.py); head importance and the pruning curve of
// the shipped model.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "analysis/attribution.h"
#include "analysis/importance.h"
#include "analysis/pruning.h"
#include "base/error.h"
#include "io/model_file.h"
#include "io/safetensors.h"
#include "model/backward.h"
#include "model/model.h"
#include "model/parameters.h"
#include "test_helpers.h"
#include "train/induction_task.h"
#include "train/task_samples.h"

namespace {

using mha_test::read_or_fail;

const char* const kRegenerate = "regenerate with: /usr/bin/python3 tests/reference/make_model_reference.py";

std::vector<int32_t> to_ids(const std::vector<int64_t>& v) { return std::vector<int32_t>(v.begin(), v.end()); }

// A reference model (tiny_gpt2, tiny_attn_only) and its heads file.
struct Reference {
  std::vector<uint8_t> model_bytes, heads_bytes;
  mha::Model model;
  mha::SafetensorsFile heads;
  explicit Reference(const std::string& name)
      : model_bytes(read_or_fail(mha_test::reference_dir() + "/" + name + ".model.safetensors", kRegenerate)),
        heads_bytes(read_or_fail(mha_test::reference_dir() + "/" + name + ".heads.safetensors", kRegenerate)),
        model(load(model_bytes)),
        heads(heads_bytes.data(), heads_bytes.size()) {}
  static mha::Model load(const std::vector<uint8_t>& bytes) {
    const mha::SafetensorsFile file(bytes.data(), bytes.size());
    return mha::Model::from_model_file(bytes.data(), bytes.size(), mha::parse_layout(mha::guess_layout(file)), 0);
  }
};

std::vector<int32_t> reference_ids(const std::string& name) {
  const auto bytes = read_or_fail(mha_test::reference_dir() + "/" + name + ".expected.safetensors", kRegenerate);
  return to_ids(mha::SafetensorsFile(bytes.data(), bytes.size()).read_int("ids"));
}

mha::Config blocks(mha::Preset preset, int d = 16, int heads = 4) {
  mha::Config c;
  c.preset = preset, c.layers = 2, c.d_model = d, c.heads = heads, c.vocab_size = 19, c.max_positions = 16;
  c.causal = true, c.seed = 5;
  return c;
}

mha::HeadGates all_on(const mha::Config& c, float value = 1.0f) {
  return mha::HeadGates(static_cast<size_t>(c.layers), std::vector<float>(static_cast<size_t>(c.heads), value));
}

// The gate gradients of the loss on a batch, through the one forward and backward, at these gates.
mha::HeadGates gate_gradients(const mha::Model& model, const std::vector<int32_t>& ids, int B, int T,
                              const mha::HeadGates& gates, mha::KernelPath path, float* loss = nullptr) {
  const mha::Config& c = model.config();
  const mha::ModelWeights weights = model.model_weights();
  std::vector<int32_t> targets(ids.size(), -1);
  for (int b = 0; b < B; ++b)
    for (int t = 0; t + 1 < T; ++t) targets[b * T + t] = ids[b * T + t + 1];
  mha::Trace acts;
  const mha::ForwardOptions options{path, &gates};
  mha::model_forward(acts, ids, B, T, weights, model.packed_weights().packed, c, options);
  if (loss) *loss = mha::mean_cross_entropy(acts, targets, c);
  mha::ModelWeights grads = mha::zeros_like(c);
  mha::HeadGates out;
  mha::ModelBackward().run(grads, &out, acts, ids, targets, B, T, weights, c, options);
  return out;
}

mha::Tensor as_tensor(const mha::HeadGates& g) {
  mha::Tensor t({static_cast<int64_t>(g.size()), static_cast<int64_t>(g.at(0).size())});
  for (size_t l = 0; l < g.size(); ++l)
    for (size_t h = 0; h < g[l].size(); ++h) t.data[l * g[l].size() + h] = g[l][h];
  return t;
}

}  // namespace

TEST_CASE("each head's write sums, with b_O, to y; a switched-off head writes zeros") {
  mha::Config single;
  single.d_model = 24, single.heads = 6, single.kv_heads = 2, single.causal = true;
  mha::Config narrow;  // d_head 4 and d_model 20: no panel width divides them
  narrow.d_model = 20, narrow.heads = 5;
  for (const mha::Config& c : {single, narrow, blocks(mha::Preset::attn_only), blocks(mha::Preset::gpt2, 24, 3)}) {
    CAPTURE(mha::preset_name(c.preset));
    CAPTURE(c.d_model);
    const mha::Model model(c);
    const int layer = mha::has_blocks(c.preset) ? c.layers - 1 : -1;
    mha::HeadGates gates = all_on(c);
    gates[std::max(layer, 0)][1] = 0.0f;
    for (mha::KernelPath path : {mha::KernelPath::simd, mha::KernelPath::scalar}) {
      CAPTURE(mha::kernel_path_name(path));
      for (const mha::HeadGates& g : {mha::HeadGates{}, gates}) {
        const mha::Trace t = mha::has_blocks(c.preset) ? model.run_ids({0, 3, 5, 7, 3, 5, 7, 2, 9}, path, g)
                                                       : model.run_text("the cat sat on the mat and the cat sat", path, g);
        const mha::Tensor& writes = t.get(mha::layer_name(layer, "head_write"));
        const mha::Tensor& y = t.get(mha::layer_name(layer, "y"));
        const int T = static_cast<int>(y.shape[1]), d = c.d_model;
        REQUIRE(writes.shape == mha::Shape{1, c.heads, T, d});
        const mha::Tensor b_o = model.model_weights().blocks.at(std::max(layer, 0)).attention.b_o;
        mha::Tensor sum({1, T, d});
        for (int h = 0; h < c.heads; ++h)
          for (int i = 0; i < T * d; ++i) sum.data[i] += writes.data[static_cast<size_t>(h) * T * d + i];
        for (int i = 0; i < T * d; ++i) sum.data[i] += b_o.data[i % d];
        mha_test::check_close(sum, y, 1e-5, "Σ_h head_write + b_O against y");
        if (!g.empty())
          for (int i = 0; i < T * d; ++i) REQUIRE(writes.data[static_cast<size_t>(T) * d + i] == 0.0f);
      }
    }
  }
}

TEST_CASE("a trace made by a model that is gone still makes its head writes, from the weights it keeps") {
  const std::vector<int32_t> ids = {0, 1, 2, 3, 1, 2};
  mha::Trace kept;
  mha::Tensor expected;
  {
    const mha::Model model(blocks(mha::Preset::attn_only));
    expected = model.run_ids(ids).get("layers.1.head_write");  // made at once
    kept = model.run_ids(ids);                                 // its head writes not made yet
  }
  CHECK(kept.get("layers.1.head_write").data == expected.data);
  const mha::LogitAttribution a = mha::attribute_logit(kept, blocks(mha::Preset::attn_only));
  CHECK(a.position == 5);
}

TEST_CASE("a trainer's batches record no head writes: nothing reads them there") {
  const mha::Config c = blocks(mha::Preset::attn_only);
  const mha::ModelWeights w = mha::random_weights(c, 0.1f);
  mha::Trace t;
  mha::model_forward(t, {0, 1, 2, 0, 2, 1}, 2, 3, w, mha::prepare_model(w, c), c);
  CHECK_FALSE(t.has("layers.0.head_write"));
  CHECK(t.has("layers.0.y"));
}

TEST_CASE("the gradient of the loss for each head's gate matches PyTorch autograd, at 1 and at gates between 0 and 1") {
  for (const char* name : {"tiny_gpt2", "tiny_attn_only"}) {
    CAPTURE(name);
    const Reference r(name);
    const mha::Config& c = r.model.config();
    const mha::Shape batch = r.heads.entry("batch_ids").shape;
    const std::vector<int32_t> batch_ids = to_ids(r.heads.read_int("batch_ids"));
    const std::vector<int32_t> ids = reference_ids(name);
    const mha::Tensor mixed = r.heads.read_float("gates_mixed");
    mha::HeadGates mixed_gates = all_on(c);
    for (int l = 0; l < c.layers; ++l)
      for (int h = 0; h < c.heads; ++h) mixed_gates[l][h] = mixed.data[static_cast<size_t>(l) * c.heads + h];
    for (mha::KernelPath path : {mha::KernelPath::simd, mha::KernelPath::scalar}) {
      CAPTURE(mha::kernel_path_name(path));
      const int B = static_cast<int>(batch[0]), T = static_cast<int>(batch[1]);
      mha_test::check_close(as_tensor(gate_gradients(r.model, batch_ids, B, T, all_on(c), path)), r.heads.read_float("gate_grad"),
                            1e-4, "gate_grad");
      mha_test::check_close(as_tensor(gate_gradients(r.model, batch_ids, B, T, mixed_gates, path)),
                            r.heads.read_float("gate_grad_mixed"), 1e-4, "gate_grad_mixed");
      mha_test::check_close(as_tensor(gate_gradients(r.model, ids, 1, static_cast<int>(ids.size()), all_on(c), path)),
                            r.heads.read_float("gate_grad_ids"), 1e-4, "gate_grad_ids");
    }
    SUBCASE("a head's importance on the ids is the size of its gate's gradient there") {
      const mha::HeadImportance imp = mha::head_importance(r.model, {mha::next_token_sample(ids)});
      const mha::Tensor expected = r.heads.read_float("gate_grad_ids");
      mha::Tensor got({c.layers, c.heads}), size({c.layers, c.heads});
      for (int l = 0; l < c.layers; ++l) {
        double norm = 0;
        for (int h = 0; h < c.heads; ++h) {
          const size_t at = static_cast<size_t>(l) * c.heads + h;
          got.data[at] = static_cast<float>(imp.importance[l][h]);
          size.data[at] = std::fabs(expected.data[at]);
          norm += imp.normalised[l][h] * imp.normalised[l][h];
        }
        CHECK(norm == doctest::Approx(1.0).epsilon(1e-9));  // divided by its layer's ℓ2 norm
      }
      mha_test::check_close(got, size, 1e-4, "importance");
    }
  }
}

TEST_CASE("the gradient of the loss for each head's gate matches finite differences") {
  for (mha::Preset preset : {mha::Preset::attn_only, mha::Preset::gpt2}) {
    CAPTURE(mha::preset_name(preset));
    mha::Config c = blocks(preset, 8, 2);
    const mha::Model model = mha::Model::from_weights(c, mha::random_weights(c, 0.3f));
    const std::vector<int32_t> ids = {0, 3, 5, 3, 5, 9, 0, 1, 2, 1, 2, 10};
    for (float at : {1.0f, 0.5f}) {
      CAPTURE(at);
      const mha::HeadGates base = all_on(c, at);
      const mha::HeadGates grads = gate_gradients(model, ids, 2, 6, base, mha::KernelPath::scalar);
      for (int l = 0; l < c.layers; ++l)
        for (int h = 0; h < c.heads; ++h) {
          const float step = 1e-2f;
          mha::HeadGates up = base, down = base;
          up[l][h] += step, down[l][h] -= step;
          float loss_up = 0, loss_down = 0;
          gate_gradients(model, ids, 2, 6, up, mha::KernelPath::scalar, &loss_up);
          gate_gradients(model, ids, 2, 6, down, mha::KernelPath::scalar, &loss_down);
          const double slope = (static_cast<double>(loss_up) - loss_down) / (2.0 * step);
          CAPTURE(l);
          CAPTURE(h);
          CHECK(grads[l][h] == doctest::Approx(slope).epsilon(2e-2).scale(1e-3));
        }
    }
  }
}

TEST_CASE("the logit splits into the embedding, each head, each MLP and the biases, as numpy splits it") {
  for (const char* name : {"tiny_gpt2", "tiny_attn_only"}) {
    CAPTURE(name);
    const Reference r(name);
    const mha::Config& c = r.model.config();
    for (mha::KernelPath path : {mha::KernelPath::simd, mha::KernelPath::scalar}) {
      CAPTURE(mha::kernel_path_name(path));
      const mha::Trace t = r.model.run_ids(reference_ids(name), path);
      for (int n = 0; n < 2; ++n) {
        CAPTURE(n);
        const std::string key = "attribution" + std::to_string(n);
        const int position = static_cast<int>(r.heads.read_int(key + ".position").at(0));
        const int32_t token = static_cast<int32_t>(r.heads.read_int(key + ".token").at(0));
        const mha::LogitAttribution a = mha::attribute_logit(t, c, position, token);
        const mha::Tensor expected = r.heads.read_float(key + ".parts");
        REQUIRE(a.parts.size() == expected.numel());
        const size_t mlps = mha::has_mlp(c.preset) ? c.layers : 0;
        CHECK(a.parts.size() == 2 + static_cast<size_t>(c.layers * c.heads) + mlps);
        mha::Tensor got(expected.shape);
        double sum = 0;
        for (size_t i = 0; i < a.parts.size(); ++i) got.data[i] = static_cast<float>(a.parts[i].value), sum += a.parts[i].value;
        mha_test::check_close(got, expected, 1e-5, "parts");
        CHECK(a.logit == doctest::Approx(r.heads.read_float(key + ".logit").data[0]).epsilon(1e-5));
        CHECK(sum == doctest::Approx(a.logit).epsilon(1e-5));
        CHECK(a.parts.front().kind == mha::LogitPart::Kind::embedding);
        CHECK(a.parts[1].kind == mha::LogitPart::Kind::head);
        CHECK(a.parts[1 + c.heads].layer == 1);
        CHECK(a.parts.back().kind == mha::LogitPart::Kind::bias);
      }
      SUBCASE("by default: the last position and its first choice") {
        const mha::LogitAttribution a = mha::attribute_logit(t, c);
        CHECK(a.position == static_cast<int>(r.heads.read_int("attribution0.position").at(0)));
        CHECK(a.token == static_cast<int32_t>(r.heads.read_int("attribution0.token").at(0)));
      }
    }
  }
}

TEST_CASE("a switched-off head adds nothing to the logit, and the parts still sum to it") {
  const mha::Model model(blocks(mha::Preset::gpt2));
  mha::HeadGates gates = all_on(model.config());
  gates[0][2] = 0.0f;
  const mha::Trace t = model.run_ids({1, 4, 6, 1, 4}, mha::KernelPath::simd, gates);
  const mha::LogitAttribution a = mha::attribute_logit(t, model.config(), 2, 7);
  double sum = 0;
  for (const mha::LogitPart& p : a.parts) {
    if (p.kind == mha::LogitPart::Kind::head && p.layer == 0 && p.head == 2) CHECK(p.value == 0.0);
    sum += p.value;
  }
  CHECK(sum == doctest::Approx(a.logit).epsilon(1e-5));
  const nlohmann::json j = mha::attribution_to_json(a);
  CHECK(j["parts"][3]["kind"] == "head");
  CHECK(j["parts"][3]["head"] == 2);
  CHECK_FALSE(j["parts"][0].contains("layer"));
}

TEST_CASE("attribution, importance and pruning refuse what they cannot read, in one clear sentence") {
  const mha::Model model(blocks(mha::Preset::attn_only));
  const mha::Trace t = model.run_ids({0, 1, 2});
  CHECK_THROWS_WITH_AS(mha::attribute_logit(t, model.config(), 3), "position 3 is outside the text: its positions are 0 to 2",
                       mha::Error);
  CHECK_THROWS_WITH_AS(mha::attribute_logit(t, model.config(), 0, 19),
                       "token id 19 at position 0 is outside the vocabulary [0, 19)", mha::Error);
  mha::Config single;
  single.d_model = 8, single.heads = 2;
  const mha::Model layer(single);
  CHECK_THROWS_WITH_AS(mha::attribute_logit(layer.run_text("a b"), single), doctest::Contains("not one attention layer"), mha::Error);
  CHECK_THROWS_WITH_AS(mha::head_importance(layer, {mha::next_token_sample({0, 1})}), doctest::Contains("not one attention layer"),
                       mha::Error);
  CHECK_THROWS_WITH_AS(mha::task_samples(single, 4, 1), doctest::Contains("not one attention layer"), mha::Error);
  CHECK_THROWS_AS(mha::head_importance(model, {mha::next_token_sample({0, 1, 40})}), mha::Error);  // outside the vocabulary
}

TEST_CASE("the task's sequences: the induction task, scored where induction predicts, the same for a seed") {
  const mha::Config c = blocks(mha::Preset::attn_only);  // 16 positions: L up to 7
  const std::vector<mha::TaskSample> a = mha::task_samples(c, 20, 9), b = mha::task_samples(c, 20, 9);
  REQUIRE(a.size() == 20);
  int scored = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].ids == b[i].ids);
    const int T = static_cast<int>(a[i].ids.size()), L = (T - 1) / 2;
    CHECK(T <= c.max_positions);
    CHECK(a[i].targets.back() == -1);
    for (int t : a[i].scored) {
      CHECK(t > L);
      CHECK(a[i].ids[t] == a[i].ids[t - L]);                 // the token stood there before …
      CHECK(a[i].targets[t] == a[i].ids[t - L + 1]);         // … and induction copies what followed it
      ++scored;
    }
  }
  CHECK(scored > 0);
}

TEST_CASE("the shipped model's pruning curve: several heads go at no cost, all of them break the repeat") {
  const std::string path = mha_test::reference_dir() + "/../../../models/induction.safetensors";  // the repo root
  const auto bytes = read_or_fail(path, "train it with: npm run train");
  const mha::Model model = mha::Model::from_model_file(bytes.data(), bytes.size(), mha::WeightLayout::attn_only, 0);
  const mha::Pruning pruning = mha::prune_heads(model, mha::task_samples(model.config(), mha::kImportanceSamples, mha::kImportanceSeed));
  const std::vector<mha::PruneStep>& steps = pruning.steps;
  const int heads = model.config().layers * model.config().heads;
  REQUIRE(static_cast<int>(steps.size()) == heads + 1);
  std::string curve;
  for (const mha::PruneStep& s : steps) curve += std::to_string(s.removed.size()) + ": " + std::to_string(s.accuracy) + "  ";
  INFO("accuracy by heads removed: " << curve);
  CHECK(steps.front().removed.empty());
  CHECK(steps.front().accuracy >= 0.99);
  bool redundant = false;
  for (const mha::PruneStep& s : steps) redundant = redundant || (s.removed.size() >= 3 && s.accuracy >= 0.9);
  CHECK(redundant);
  CHECK(steps.back().accuracy <= 0.2);
  CHECK(static_cast<int>(steps.back().removed.size()) == heads);
  for (size_t i = 1; i < steps.size(); ++i)  // each step removes one more head, keeping the ones before
    CHECK(std::equal(steps[i - 1].removed.begin(), steps[i - 1].removed.end(), steps[i].removed.begin()));
  // the same curve as scored on its own, with those heads' gates at 0
  mha::HeadGates gates = all_on(model.config());
  for (const auto& [l, h] : steps[3].removed) gates[l][h] = 0.0f;
  const mha::TaskScore score =
      mha::score_task(model, mha::task_samples(model.config(), mha::kImportanceSamples, mha::kImportanceSeed), gates);
  CHECK(score.accuracy == steps[3].accuracy);
  CHECK(score.loss == steps[3].loss);
}

TEST_CASE("the shipped recall model's pruning curve: no head is redundant, each one removed costs its offset") {
  const std::string path = mha_test::reference_dir() + "/../../../models/recall.safetensors";  // the repo root
  const auto bytes = read_or_fail(path, "train it with: npm run train");
  const mha::Model model = mha::Model::from_model_file(bytes.data(), bytes.size(), mha::WeightLayout::attn_only, 0);
  REQUIRE(model.config().readouts == 4);
  const std::vector<mha::TaskSample> samples = mha::task_samples(model.config(), mha::kImportanceSamples, mha::kImportanceSeed);
  for (const mha::TaskSample& s : samples) {  // the recall task's rows: readout k − 1 at i ≥ K names the id k back
    REQUIRE(s.targets.size() == s.ids.size() * 4);
    for (int row : s.scored) CHECK(s.targets[static_cast<size_t>(row)] == s.ids[static_cast<size_t>(row / 4 - (row % 4 + 1))]);
  }
  const std::vector<mha::PruneStep> steps = mha::prune_heads(model, samples).steps;
  REQUIRE(steps.size() == 5);
  std::string curve;
  for (const mha::PruneStep& s : steps) curve += std::to_string(s.removed.size()) + ": " + std::to_string(s.accuracy) + "  ";
  INFO("accuracy by heads removed: " << curve);
  CHECK(steps.front().accuracy >= 0.98);
  for (size_t i = 1; i < steps.size(); ++i) CHECK(steps[i].accuracy <= steps[i - 1].accuracy - 0.2);  // a quarter each
  CHECK(steps.back().accuracy <= 0.1);
}
