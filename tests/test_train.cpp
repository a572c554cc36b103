// Training: gradients against PyTorch autograd and finite differences, AdamW against torch.optim.Adam,
// determinism, and the shipped model's heads measured on sequences it never saw.
#include <doctest/doctest.h>

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <cstdio>
#include <string>

#include "base/error.h"
#include "train/checkpoint.h"
#include "train/recipe.h"
#include "model/model.h"
#include "model/parameters.h"
#include "io/model_file.h"
#include "io/files.h"
#include "io/safetensors.h"
#include "test_helpers.h"
#include "train/train.h"

namespace {

// Rounds to half precision (to nearest, ties to even) as the page's F16 model files do, through the
// F16C instructions: GCC and clang 14 (the sanitizer build) share no half type on x86.
// (The vector forms: clang's scalar _cvtss_sh is a macro with a C99 compound literal, a -Wpedantic
// warning wherever its target turns it on.)
__attribute__((target("f16c"))) float round_to_half(float v) { return _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtps_ph(_mm_set_ss(v), 0))); }

using mha_test::read_or_fail;

std::vector<int32_t> to_ids(const std::vector<int64_t>& v) { return std::vector<int32_t>(v.begin(), v.end()); }

// The batch's next-token targets: position t predicts t + 1, nothing at the last position.
std::vector<int32_t> next_tokens(const std::vector<int32_t>& ids, int B, int T) {
  std::vector<int32_t> targets(ids.size(), -1);
  for (int b = 0; b < B; ++b)
    for (int t = 0; t + 1 < T; ++t) targets[b * T + t] = ids[b * T + t + 1];
  return targets;
}

mha::Config small_config(mha::Preset preset) {
  mha::Config c;
  c.preset = preset, c.layers = 2, c.d_model = 8, c.heads = 2, c.vocab_size = 11, c.max_positions = 7, c.causal = true;
  c.seed = 3;
  return c;
}

}  // namespace

TEST_CASE("gradients of every parameter match PyTorch autograd, and two AdamW steps match torch.optim.Adam") {
  // tiny_recall: the recall task's loss, K = 3 readouts per position (the same code path as the next token's)
  for (const char* name : {"tiny_attn_only", "tiny_gpt2", "tiny_recall"}) {
    CAPTURE(name);
    const auto model_bytes = mha_test::model_reference_file(std::string(name) + ".model.safetensors");
    const auto grads_bytes = mha_test::model_reference_file(std::string(name) + ".grads.safetensors");
    const mha::SafetensorsFile reference(grads_bytes.data(), grads_bytes.size());
    const mha::SafetensorsFile model_file(model_bytes.data(), model_bytes.size());
    const mha::LoadedModel loaded =
        mha::read_model(model_file, mha::parse_preset(reference.metadata().count("layout") ? reference.metadata().at("layout").c_str()
                                                                                           : model_file.metadata().at("layout").c_str()), 0);
    const mha::Shape batch_shape = reference.entry("batch_ids").shape;
    const int B = static_cast<int>(batch_shape[0]), T = static_cast<int>(batch_shape[1]);
    const std::vector<int32_t> ids = to_ids(reference.read_int("batch_ids"));
    std::vector<int32_t> targets = next_tokens(ids, B, T);
    if (loaded.config.readouts > 1) {  // readout k − 1 at i ≥ K: the id at i − k
      targets.clear();
      for (int b = 0; b < B; ++b) {
        const std::vector<int32_t> one = mha::recall_targets({ids.begin() + b * T, ids.begin() + (b + 1) * T}, loaded.config.readouts);
        targets.insert(targets.end(), one.begin(), one.end());
      }
    }
    mha::AdamSettings adam;
    adam.lr = std::stof(reference.metadata().at("lr"));
    adam.beta1 = std::stof(reference.metadata().at("beta1"));
    adam.beta2 = std::stof(reference.metadata().at("beta2"));
    adam.eps = std::stof(reference.metadata().at("eps"));

    for (mha::KernelPath path : {mha::KernelPath::simd, mha::KernelPath::scalar}) {
      CAPTURE(mha::kernel_path_name(path));
      mha::Trainer trainer(loaded.config, mha::unpack_model(loaded.weights, loaded.config), adam, path);
      const float loss = trainer.loss_and_gradients(ids, targets, B, T);
      CHECK(loss == doctest::Approx(reference.read_float("loss").data[0]).epsilon(1e-5));
      // Our gradients in the file's names and conventions (c_attn fused, Conv1D transposed).
      const std::vector<uint8_t> ours_bytes = mha::write_model(trainer.gradients(), loaded.config);
      const mha::SafetensorsFile ours(ours_bytes.data(), ours_bytes.size());
      int compared = 0;
      for (const std::string& param : ours.names()) {
        mha_test::check_close(ours.read_float(param), reference.read_float("grad." + param), 1e-4, "grad." + param);
        ++compared;
      }
      CHECK(compared >= 7);
      for (int step = 1; step <= 2; ++step) {
        trainer.step(ids, targets, B, T);
        const std::vector<uint8_t> after_bytes = mha::write_model(trainer.weights(), loaded.config);
        const mha::SafetensorsFile after(after_bytes.data(), after_bytes.size());
        for (const std::string& param : after.names()) {
          const std::string key = "adam" + std::to_string(step) + "." + param;
          // Adam divides each gradient by its own running size, so an entry whose gradient is zero in
          // exact arithmetic (the key bias: a constant added to a row of scores changes no softmax)
          // moves by ±lr on rounding noise alone. Compare the entries with a real gradient.
          const mha::Tensor grad = reference.read_float("grad." + param);
          double grad_max = 0;
          for (float g : grad.data) grad_max = std::max(grad_max, std::fabs(static_cast<double>(g)));
          mha::Tensor ours_p = after.read_float(param), theirs_p = reference.read_float(key);
          size_t kept = 0;
          for (size_t i = 0; i < grad.numel(); ++i)
            if (std::fabs(grad.data[i]) > 1e-3 * grad_max) ours_p.data[kept] = ours_p.data[i], theirs_p.data[kept++] = theirs_p.data[i];
          ours_p.data.resize(kept), theirs_p.data.resize(kept);
          ours_p.shape = theirs_p.shape = {static_cast<int64_t>(kept)};
          CHECK(kept > 0);  // unused table rows (wte, wpe) have no gradient at all
          mha_test::check_close(ours_p, theirs_p, 1e-4, key);
        }
      }
    }
  }
}

TEST_CASE("gradients match finite differences of the loss") {
  for (mha::Preset preset : {mha::Preset::attn_only, mha::Preset::gpt2}) {
    CAPTURE(mha::preset_name(preset));
    const mha::Config c = small_config(preset);
    const mha::ModelWeights start = mha::random_weights(c, 0.3f);
    const int B = 2, T = 6;
    const std::vector<int32_t> ids = {0, 3, 5, 3, 5, 9, 0, 1, 2, 1, 2, 10};
    const std::vector<int32_t> targets = next_tokens(ids, B, T);
    mha::Trainer trainer(c, start, {}, mha::KernelPath::scalar);
    trainer.loss_and_gradients(ids, targets, B, T);
    const mha::ModelWeights grads = trainer.gradients();

    // Perturb a few entries of every parameter, and compare the slope of the loss with the gradient.
    std::vector<std::pair<std::string, const mha::Tensor*>> analytic;
    mha::for_each_parameter(grads, c, [&](const std::string& n, const mha::ParameterSpec&, const mha::Tensor& t) { analytic.push_back({n, &t}); });
    size_t index = 0;
    mha::ModelWeights probe = start;
    std::vector<mha::Tensor*> params;
    mha::for_each_parameter(probe, c, [&](const std::string&, const mha::ParameterSpec&, mha::Tensor& t) { params.push_back(&t); });
    for (mha::Tensor* p : params) {
      const auto& name = analytic[index].first;
      const auto& g = analytic[index].second;
      ++index;
      CAPTURE(name);
      for (size_t i = 0; i < p->numel(); i += std::max<size_t>(1, p->numel() / 3)) {
        const float keep = p->data[i], h = 1e-2f;
        p->data[i] = keep + h;
        const float up = mha::Trainer(c, probe, {}, mha::KernelPath::scalar).loss_and_gradients(ids, targets, B, T);
        p->data[i] = keep - h;
        const float down = mha::Trainer(c, probe, {}, mha::KernelPath::scalar).loss_and_gradients(ids, targets, B, T);
        p->data[i] = keep;
        const double slope = (static_cast<double>(up) - down) / (2.0 * h);
        CAPTURE(i);
        CHECK(g->data[i] == doctest::Approx(slope).epsilon(3e-2).scale(1e-3));
      }
    }
  }
}

TEST_CASE("training is deterministic: the same seed gives the same bits, and the loss falls") {
  const mha::Config c = small_config(mha::Preset::attn_only);
  mha::InductionTask task;
  task.vocab = c.vocab_size, task.min_length = 2, task.max_length = 3;
  const auto run = [&] {
    mha::AdamSettings adam;
    adam.lr = 1e-2f;
    mha::Trainer trainer(c, mha::random_weights(c, 0.1f), adam);
    mha::Rng rng(5);
    const mha::Batch batch = mha::induction_batch(rng, task, 4);  // one batch, learnt by heart
    std::vector<float> losses;
    for (int s = 0; s < 60; ++s) losses.push_back(trainer.step(batch.ids, batch.targets, batch.B, batch.T));
    return std::make_pair(losses, trainer.weights().blocks[1].attention.w_q.data);
  };
  const auto a = run(), b = run();
  CHECK(a.first == b.first);
  CHECK(a.second == b.second);
  CHECK(a.first.back() < 0.5f * a.first.front());
}

TEST_CASE("a run stopped at a checkpoint and resumed takes the unbroken run's steps, bit for bit; another run's checkpoint is refused") {
  mha::Recipe r = mha::induction_recipe();
  r.config.preset = mha::Preset::gpt2;  // LayerNorm and MLP parameters too, each with its moments
  r.config.layers = 2, r.config.heads = 2, r.config.d_model = 16, r.config.vocab_size = 12;
  r.induction.min_length = 3, r.induction.max_length = 5;
  r.batch = 4, r.steps = 8, r.warmup = 2, r.final_lr = 0.5f;
  const auto bits = [](const mha::Training& t) {
    std::vector<float> out;
    for (const mha::ModelWeights* w : {&t.trainer().weights(), &t.trainer().adam_m(), &t.trainer().adam_v()})
      mha::for_each_parameter(*w, t.recipe().config, [&](const std::string&, const mha::ParameterSpec&, const mha::Tensor& p) {
        out.insert(out.end(), p.data.begin(), p.data.end());
      });
    return out;
  };
  mha::Training straight(r);
  std::vector<float> losses;
  for (int s = 0; s < r.steps; ++s) losses.push_back(straight.step());

  mha::Training first(r);
  for (int s = 0; s < 3; ++s) first.step();
  const std::vector<uint8_t> checkpoint = mha::write_checkpoint(first, {{"losses", "kept"}});
  mha::Training resumed(r);
  const auto kept = mha::restore_checkpoint(resumed, checkpoint, "run.checkpoint.safetensors");
  CHECK(kept.at("losses") == "kept");
  CHECK(resumed.trainer().steps_done() == 3);
  std::vector<float> resumed_losses;
  for (int s = 3; s < r.steps; ++s) resumed_losses.push_back(resumed.step());
  CHECK(resumed_losses == std::vector<float>(losses.begin() + 3, losses.end()));  // the schedule and the batches went on too
  CHECK(bits(resumed) == bits(straight));
  CHECK(resumed.data().state() == straight.data().state());

  mha::Recipe other = r;
  other.adam.lr *= 2;
  mha::Training elsewhere(other);
  const std::vector<float> before = bits(elsewhere);
  CHECK_THROWS_WITH_AS(mha::restore_checkpoint(elsewhere, checkpoint, "run.checkpoint.safetensors"),
                       doctest::Contains("run.checkpoint.safetensors was written by another run"), mha::Error);
  CHECK(bits(elsewhere) == before);  // nothing half-restored
  CHECK(elsewhere.trainer().steps_done() == 0);
  const std::vector<uint8_t> model = mha::write_model(first.trainer().weights(), first.recipe().config);
  CHECK_THROWS_WITH_AS(mha::restore_checkpoint(elsewhere, model, "model.safetensors"), doctest::Contains("not a training checkpoint"),
                       mha::Error);
  CHECK_THROWS_AS(mha::write_checkpoint(first, {{"step", "9"}}), mha::Error);
}

TEST_CASE("bad training input is refused") {
  const mha::Config c = small_config(mha::Preset::attn_only);
  mha::Trainer trainer(c, mha::random_weights(c, 0.1f), {});
  CHECK_THROWS_WITH_AS(trainer.step({0, 11}, {11, -1}, 1, 2), doctest::Contains("outside the vocabulary"), mha::Error);
  CHECK_THROWS_WITH_AS(trainer.step(std::vector<int32_t>(8, 1), std::vector<int32_t>(8, 1), 1, 8),
                       doctest::Contains("only 7 positions"), mha::Error);
  CHECK_THROWS_WITH_AS(trainer.step({1, 2}, {-1, -1}, 1, 2), doctest::Contains("no position with a target"), mha::Error);
  CHECK_THROWS_WITH_AS(mha::Trainer(small_config(mha::Preset::single), {}, {}), doctest::Contains("needs a model with blocks"),
                       mha::Error);
}

TEST_CASE("the shipped model's heads specialise, on sequences it never saw, also as the page's F16 copy") {
  const std::string path = mha_test::reference_dir() + "/../../../models/induction.safetensors";  // the repo root
  const auto bytes = read_or_fail(path, "remake it with: npm run train");
  const mha::Model model = mha::Model::from_model_file(bytes.data(), bytes.size(), mha::WeightLayout::attn_only, 0);
  CHECK(model.config().heads == 4);  // read from the file: no --heads needed
  // The page bundles the weights rounded to F16 (scripts/model-f16.js); it must still do what it teaches.
  mha::ModelWeights halves = model.model_weights();
  mha::for_each_parameter(halves, model.config(), [](const std::string&, const mha::ParameterSpec&, mha::Tensor& t) {
    for (float& v : t.data) v = round_to_half(v);
  });
  const mha::Model rounded = mha::Model::from_weights(model.config(), halves);
  mha::InductionTask task;
  task.vocab = model.config().vocab_size;
  CHECK(task.vocab >= 64);
  for (const mha::Model* m : {&model, &rounded}) {
    CAPTURE(m == &rounded ? "F16" : "F32");
    for (const mha::InductionScores& s : mha::evaluate_induction(*m, task, /*seed=*/20261124, /*sequences=*/8)) {
      CAPTURE(s.length);
      CHECK(s.positions > 0);
      CHECK(s.accuracy >= 0.9);
      CHECK(s.previous_token >= 0.5);
      CHECK(s.induction >= 0.7);
    }
  }
}

TEST_CASE("a GPT-2-layout model trained here reads text by first appearance, as its file says; without that word it needs GPT-2's tokenizer") {
  mha::Recipe r = mha::induction_recipe();
  r.config.preset = mha::Preset::gpt2;
  r.config.layers = 2, r.config.d_model = 16, r.config.heads = 2, r.config.vocab_size = 20;
  r.induction.max_length = 6;
  const mha::Training training(r);
  const mha::Recipe& used = training.recipe();
  const std::vector<uint8_t> said = mha::write_model(training.trainer().weights(), used.config, mha::training_metadata(used, 0));
  const mha::Model reads = mha::Model::from_model_file(said.data(), said.size(), mha::WeightLayout::gpt2, 0);
  CHECK(reads.run_text("a b a").ids == std::vector<int32_t>{0, 1, 2, 1});
  const std::vector<uint8_t> silent = mha::write_model(training.trainer().weights(), used.config);
  const mha::Model needs = mha::Model::from_model_file(silent.data(), silent.size(), mha::WeightLayout::gpt2, 0);
  CHECK_THROWS_WITH_AS(needs.run_text("a b a"), doctest::Contains("its own tokenizer"), mha::Error);
}

TEST_CASE("a training recipe is checked before anything is allocated, each refusal naming its setting") {
  const auto refusal = [](const std::function<void(mha::Recipe&)>& edit) {
    mha::Recipe r = mha::induction_recipe();
    edit(r);
    try {
      mha::Training training(r);
    } catch (const mha::Error& e) {
      return e.field() + ": " + e.what();
    }
    return std::string("(no error)");
  };
  using R = mha::Recipe;
  CHECK(refusal([](R& r) { r.config.layers = 1; }) ==
        "layers: the induction task needs at least 2 layers, one to find the previous token and one to copy what "
        "followed it; got 1");
  CHECK(refusal([](R& r) { r.batch = 0; }) == "batch: batch must be between 1 and 4096, got 0");
  CHECK(refusal([](R& r) { r.batch = 1 << 30; }) == "batch: batch must be between 1 and 4096, got 1073741824");
  // 2·max_length + 1 would overflow int: refused first (UBSan sees no overflow)
  CHECK(refusal([](R& r) { r.induction.max_length = 2147483647; }) ==
        "max_length: max_length must be between 4 and 2047, got 2147483647");
  CHECK(refusal([](R& r) { r.induction.min_length = -5; }) == "min_length: min_length must be between 2 and 2047, got -5");
  // sizes that pass every other check but imply tens of GB
  CHECK(refusal([](R& r) { r.config.vocab_size = 1 << 20; }) ==
        ": training on batches of 16 × 61 tokens needs about 18198 MB of memory; the limit is 1024 MB");
  CHECK(refusal([](R& r) { r.batch = 4096, r.induction.max_length = 2000; }).find("the limit is 1024 MB") !=
        std::string::npos);
  CHECK(refusal([](R&) {}) == "(no error)");
  // the estimate grows with what training holds
  mha::Config c = mha::induction_recipe().config;
  const uint64_t small = mha::training_bytes(c, 16, 61);
  CHECK(mha::training_bytes(c, 32, 61) > small);
  c.vocab_size *= 2;
  CHECK(mha::training_bytes(c, 16, 61) > small);
}

TEST_CASE("evaluating induction stops when asked, and refuses sequences outside its range") {
  mha::Recipe r = mha::induction_recipe_small();
  const mha::Training training(r);
  const mha::Model model = training.model();
  int asked = 0;
  const auto scores = mha::evaluate_induction(model, training.recipe().induction, 1, 1000, [&] { return ++asked > 3; });
  CHECK(asked == 4);      // asked before each sequence: stopped at the fourth
  CHECK(scores.empty());  // no length was finished
  CHECK(mha::evaluate_induction(model, training.recipe().induction, 1, 1).size() ==
        static_cast<size_t>(r.induction.max_length - r.induction.min_length + 1));
  for (int sequences : {0, -1, mha::kMaxEvalSequences + 1})
    CHECK_THROWS_WITH_AS(mha::evaluate_induction(model, training.recipe().induction, 1, sequences),
                         doctest::Contains("sequences must be between 1 and 100000"), mha::Error);
}

TEST_CASE("the recall task: readout k − 1 at every position i ≥ K is the id at i − k, nothing before K") {
  mha::RecallTask task;
  task.readouts = 3, task.length = 6, task.vocab = 10;
  mha::Rng rng(9);
  const mha::Batch batch = mha::recall_batch(rng, task, 2);
  REQUIRE(batch.ids.size() == 12);
  REQUIRE(batch.targets.size() == 36);
  for (int b = 0; b < 2; ++b)
    for (int i = 0; i < 6; ++i)
      for (int k = 1; k <= 3; ++k) {
        const int32_t want = i >= 3 ? batch.ids[static_cast<size_t>(b * 6 + i - k)] : -1;
        CHECK(batch.targets[static_cast<size_t>((b * 6 + i) * 3 + k - 1)] == want);
      }
  for (int32_t id : batch.ids) CHECK((id >= 0 && id < 10));
  CHECK(mha::recall_targets({4, 5, 6}, 1) == std::vector<int32_t>{-1, 4, 5});
}

TEST_CASE("the recall recipe: the same parameters at every head count of the sweep, and bad recipes refused") {
  const mha::Recipe r = mha::recall_recipe();
  CHECK(r.config.readouts == r.recall.readouts);
  CHECK(r.config.max_positions == r.recall.length);
  for (int heads : mha::sweep_heads()) {
    mha::Config c = r.config;
    c.heads = heads;
    CHECK(mha::parameter_count(c) == mha::parameter_count(r.config));
  }
  mha::Recipe gpt2 = r;
  gpt2.config.preset = mha::Preset::gpt2;
  CHECK_THROWS_WITH_AS(mha::checked_recipe(gpt2), doctest::Contains("attn-only"), mha::Error);
  mha::Recipe short_one = r;
  short_one.recall.length = 4;
  CHECK_THROWS_WITH_AS(mha::checked_recipe(short_one), doctest::Contains("length must be between 5 and"), mha::Error);
  CHECK_THROWS_WITH_AS(mha::parse_task("copy"), doctest::Contains("expected induction, recall or corpus"), mha::Error);
}

TEST_CASE("recall training is deterministic and its loss falls") {
  mha::Recipe r = mha::recall_recipe();
  r.config.d_model = 16, r.config.vocab_size = 8, r.recall.length = 8, r.recall.readouts = 2, r.batch = 8;
  const auto run = [&] {
    mha::Training training(r);
    std::vector<float> losses;
    for (int s = 0; s < 120; ++s) losses.push_back(training.step());
    return std::make_pair(losses, training.trainer().weights().unembedding.data);
  };
  const auto a = run(), b = run();
  CHECK(a.first == b.first);
  CHECK(a.second == b.second);
  CHECK(a.first.back() < 0.8f * a.first.front());
}

TEST_CASE("the shipped recall model recalls all four, one head per offset, also as the page's F16 copy; the sweep's CSV is its") {
  const std::string root = mha_test::reference_dir() + "/../../../";
  const auto bytes = read_or_fail(root + "models/recall.safetensors", "remake it with: npm run train");
  const mha::Model model = mha::Model::from_model_file(bytes.data(), bytes.size(), mha::WeightLayout::attn_only, 0);
  const mha::Recipe recipe = mha::recall_recipe();
  CHECK(model.config().readouts == recipe.recall.readouts);  // from the file's task and recall
  CHECK(model.config().heads == recipe.config.heads);
  mha::ModelWeights halves = model.model_weights();
  mha::for_each_parameter(halves, model.config(), [](const std::string&, const mha::ParameterSpec&, mha::Tensor& t) {
    for (float& v : t.data) v = round_to_half(v);
  });
  const mha::Model rounded = mha::Model::from_weights(model.config(), halves);
  const int K = recipe.recall.readouts;
  for (const mha::Model* m : {&model, &rounded}) {
    CAPTURE(m == &rounded ? "F16" : "F32");
    const mha::RecallScores s = mha::evaluate_recall(*m, recipe.recall, /*seed=*/20261124, /*sequences=*/200);
    CHECK(s.mean_accuracy >= 0.98);
    // each offset k has one head whose mean weight on i − k is at least 0.7, and no head serves two
    std::vector<int> owner(static_cast<size_t>(K), -1);
    for (int k = 0; k < K; ++k)
      for (int h = 0; h < m->config().heads; ++h)
        if (s.stripe[h][k] >= 0.7) {
          CHECK(owner[k] == -1);
          owner[k] = h;
        }
    std::vector<int> sorted = owner;
    std::sort(sorted.begin(), sorted.end());
    CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());
    CHECK(sorted.front() >= 0);
  }
  // Each head carries its offset alone (what the attend stage's text says): switched off, its readout
  // fails and the other three stay right.
  {
    mha::Rng rng(7);
    std::vector<int> owner(static_cast<size_t>(K), -1);
    const mha::RecallScores s = mha::evaluate_recall(model, recipe.recall, 20261124, 100);
    for (int h = 0; h < model.config().heads; ++h)
      for (int k = 0; k < K; ++k)
        if (s.stripe[h][k] >= 0.7) owner[k] = h;
    for (int k = 0; k < K; ++k) {
      CAPTURE(k);
      REQUIRE(owner[k] >= 0);
      mha::HeadGates gates(1, std::vector<float>(static_cast<size_t>(model.config().heads), 1.0f));
      gates[0][owner[k]] = 0.0f;
      std::vector<int> right(static_cast<size_t>(K), 0);
      int counted = 0;
      for (int n = 0; n < 50; ++n) {
        const std::vector<int32_t> ids = mha::recall_sequence(rng, recipe.recall);
        const mha::Trace t = model.run_ids(ids, mha::KernelPath::simd, gates);
        const float* p = t.get("probs").ptr();
        const int V = model.config().vocab_size, T = recipe.recall.length;
        for (int i = K; i < T; ++i, ++counted)
          for (int r = 0; r < K; ++r) {
            const float* row = p + (static_cast<size_t>(i) * K + r) * V;
            right[r] += static_cast<int>(std::max_element(row, row + V) - row) == ids[static_cast<size_t>(i - r - 1)];
          }
      }
      for (int r = 0; r < K; ++r) {
        CAPTURE(r);
        if (r == k) CHECK(right[r] <= counted / 5);  // about chance: its token is gone
        else CHECK(right[r] >= counted * 98 / 100);
      }
    }
  }
  // models/recall-sweep.csv's row for the shipped head count is this model's score on the recipe's sequences
  const auto csv_bytes = read_or_fail(root + "models/recall-sweep.csv", "remake it with: npm run train");
  const std::string csv(csv_bytes.begin(), csv_bytes.end());
  const mha::RecallScores s = mha::evaluate_recall(model, recipe.recall, mha::evaluation_seed(recipe), mha::kRecallEvalSequences);
  char row[128];
  std::snprintf(row, sizeof row, "\n%d,%d,%lld,%.4f,%.4f", recipe.config.heads, recipe.config.d_head(),
                static_cast<long long>(mha::parameter_count(recipe.config)), s.loss, s.mean_accuracy);
  std::string line = row;
  for (double a : s.accuracy) std::snprintf(row, sizeof row, ",%.4f", a), line += row;
  CHECK(csv.find(line + "\n") != std::string::npos);
}
