// Training: gradients against PyTorch autograd and finite differences, AdamW against torch.optim.Adam,
// determinism, and the shipped model's heads measured on sequences it never saw.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "base/error.h"
#include "train/induction_task.h"
#include "model/model.h"
#include "io/model_file.h"
#include "io/safetensors.h"
#include "test_helpers.h"
#include "train/train.h"

namespace {

using mha_test::read_or_fail;

std::vector<uint8_t> reference_file(const std::string& name) {
  return read_or_fail(std::string(MHA_REFERENCE_DIR) + "/" + name,
                      "regenerate with: /usr/bin/python3 tests/reference/make_model_reference.py");
}

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
  for (const char* name : {"tiny_attn_only", "tiny_gpt2"}) {
    CAPTURE(name);
    const auto model_bytes = reference_file(std::string(name) + ".model.safetensors");
    const auto grads_bytes = reference_file(std::string(name) + ".grads.safetensors");
    const mha::SafetensorsFile reference(grads_bytes.data(), grads_bytes.size());
    const mha::SafetensorsFile model_file(model_bytes.data(), model_bytes.size());
    const mha::LoadedModel loaded =
        mha::read_model(model_file, mha::parse_preset(reference.metadata().count("layout") ? reference.metadata().at("layout").c_str()
                                                                                           : model_file.metadata().at("layout").c_str()), 0);
    const mha::Shape batch_shape = reference.entry("batch_ids").shape;
    const int B = static_cast<int>(batch_shape[0]), T = static_cast<int>(batch_shape[1]);
    const std::vector<int32_t> ids = to_ids(reference.read_int("batch_ids"));
    const std::vector<int32_t> targets = next_tokens(ids, B, T);
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
      const auto& [name, g] = analytic[index++];
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
  const std::string path = std::string(MHA_REFERENCE_DIR) + "/../../../models/induction.safetensors";  // the repo root
  const auto bytes = read_or_fail(path, "remake it with: npm run train");
  const mha::Model model = mha::Model::from_model_file(bytes.data(), bytes.size(), mha::WeightLayout::attn_only, 0);
  CHECK(model.config().heads == 4);  // read from the file: no --heads needed
  // The page bundles the weights rounded to F16 (scripts/model-f16.js); it must still do what it teaches.
  mha::ModelWeights halves = model.model_weights();
  mha::for_each_parameter(halves, model.config(), [](const std::string&, const mha::ParameterSpec&, mha::Tensor& t) {
    for (float& v : t.data) v = static_cast<float>(static_cast<_Float16>(v));
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
  mha::InductionRecipe r = mha::induction_recipe();
  r.config.preset = mha::Preset::gpt2;
  r.config.layers = 1, r.config.d_model = 16, r.config.heads = 2, r.config.vocab_size = 20;
  r.task.max_length = 6;
  const mha::InductionTraining training(r);
  const mha::InductionRecipe& used = training.recipe();
  const std::vector<uint8_t> said = mha::write_model(training.trainer().weights(), used.config, mha::training_metadata(used, 0));
  const mha::Model reads = mha::Model::from_model_file(said.data(), said.size(), mha::WeightLayout::gpt2, 0);
  CHECK(reads.run_text("a b a").ids == std::vector<int32_t>{0, 1, 2, 1});
  const std::vector<uint8_t> silent = mha::write_model(training.trainer().weights(), used.config);
  const mha::Model needs = mha::Model::from_model_file(silent.data(), silent.size(), mha::WeightLayout::gpt2, 0);
  CHECK_THROWS_WITH_AS(needs.run_text("a b a"), doctest::Contains("its own tokenizer"), mha::Error);
}
