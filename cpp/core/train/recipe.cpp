#include "train/recipe.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "base/error.h"

namespace mha {

namespace {
// Streams of the seed, fixed forever: the batches, the final evaluation, the phase-change check.
constexpr uint64_t kStreamData = 2000, kStreamEvaluate = 3000, kStreamCheck = 4000;
}  // namespace

const char* task_name(TaskKind task) {
  return task == TaskKind::recall ? "recall" : task == TaskKind::corpus ? "corpus" : "induction";
}

std::vector<std::string> task_names() {
  std::vector<std::string> names;
  for (TaskKind t : {TaskKind::induction, TaskKind::recall, TaskKind::corpus}) names.emplace_back(task_name(t));
  return names;
}

TaskKind parse_task(const std::string& name) {
  if (name == "induction") return TaskKind::induction;
  if (name == "recall") return TaskKind::recall;
  if (name == "corpus") return TaskKind::corpus;
  throw Error("unknown task '" + name + "'; expected induction, recall or corpus");
}

Recipe induction_recipe() {
  Recipe r;
  Config& c = r.config;
  c.preset = Preset::attn_only;
  c.layers = 2, c.heads = 4, c.d_model = 64, c.vocab_size = 64, c.causal = true, c.seed = 2;
  return checked_recipe(r);
}

Recipe induction_recipe_small() {
  Recipe r = induction_recipe();
  r.config.d_model = 32, r.config.heads = 2, r.config.vocab_size = 32;
  r.induction.max_length = 16;
  r.batch = 8;
  r.adam.lr = 5e-3f;
  return checked_recipe(r);
}

Recipe recall_recipe() {
  Recipe r;
  r.task = TaskKind::recall;
  Config& c = r.config;
  c.preset = Preset::attn_only;
  c.layers = 1, c.heads = 4, c.d_model = 64, c.vocab_size = 64, c.causal = true, c.seed = 3;
  r.batch = 32;
  r.steps = 2000;
  return checked_recipe(r);
}

Recipe corpus_recipe(const std::string& corpus, std::shared_ptr<const Corpus> data) {
  Recipe r;
  r.task = TaskKind::corpus;
  r.corpus.corpus = corpus;
  r.corpus.length = 128;  // at 64, the same steps gave weaker heads and a loss 0.07–0.23 higher (models/README.md)
  r.corpus.data = std::move(data);
  Config& c = r.config;
  c.preset = Preset::gpt2;
  c.layers = 4, c.heads = 4, c.d_model = 128, c.causal = true, c.seed = corpus_spec(corpus).seed;
  c.vocab_size = r.corpus.data ? r.corpus.data->tokenizer->vocab_size() : corpus_spec(corpus).vocab_size;
  // Batch 16 × 4,000 steps: ~55 min on one core of this 2-core machine; batch 32 twice as long a step.
  r.batch = corpus_spec(corpus).batch;
  r.steps = corpus_spec(corpus).steps;
  r.adam.lr = 2e-3f;
  r.adam.weight_decay = corpus_spec(corpus).weight_decay;
  r.warmup = 100;
  r.final_lr = 0.1f;
  r.init_std = 0.02f;
  return checked_recipe(r);
}

Recipe corpus_recipe_page(const std::string& corpus) {
  Recipe r = corpus_recipe(corpus);
  r.corpus.length = 64;
  Config& c = r.config;
  c.layers = 2, c.d_model = 64, c.vocab_size = 1000, c.seed = corpus_spec(corpus).page_seed;
  r.batch = 8;
  r.steps = 1800;
  r.adam.lr = corpus_spec(corpus).page_lr;
  r.adam.weight_decay = 0.0f;  // its figures were measured without it (models/README.md)
  r.warmup = 30;
  r.final_lr = corpus_spec(corpus).page_final_lr;
  return checked_recipe(r);
}

Recipe recipe_of(TaskKind task) {
  return task == TaskKind::recall ? recall_recipe() : task == TaskKind::corpus ? corpus_recipe("tang") : induction_recipe();
}

float scheduled_lr(const Recipe& r, int step) {
  const float lr = r.adam.lr;
  if (step <= r.warmup) return lr * static_cast<float>(step) / static_cast<float>(r.warmup);
  const int decay = r.steps - r.warmup;
  if (decay <= 0 || r.final_lr == 1.0f) return lr;
  const float done = static_cast<float>(std::min(step, r.steps) - r.warmup) / static_cast<float>(decay);
  return lr * (1.0f - done * (1.0f - r.final_lr));
}

std::vector<int> sweep_heads() { return {1, 2, 4, 8, 16, 64}; }

namespace {
void check_range(const char* field, int value, int min, int max) {
  using std::to_string;
  if (value < min || value > max)
    throw Error(ErrorCode::out_of_range, field, {{"min", to_string(min)}, {"max", to_string(max)}, {"value", to_string(value)}});
}
}  // namespace

// Sizes first (so 2·max_length + 1 cannot overflow), then the config, then the memory they imply.
Recipe checked_recipe(Recipe r) {
  if (!has_blocks(r.config.preset)) throw Error("the training tasks train an attn-only or gpt2 model");
  check_range("batch", r.batch, 1, kMaxBatch);
  if (!(r.init_std > 0.0f)) throw Error("init_std must be positive");
  if (!(r.adam.lr > 0.0f)) throw Error("the learning rate must be positive");
  check_range("warmup", r.warmup, 0, r.steps);
  if (!(r.final_lr > 0.0f && r.final_lr <= 1.0f)) throw Error("final_lr, the last step's share of the learning rate, is in (0, 1]");
  r.config.causal = true;
  if (r.task == TaskKind::induction) {
    InductionTask& t = r.induction;
    if (r.config.layers < 2)
      throw Error(ErrorCode::induction_needs_two_layers, "layers", {{"value", std::to_string(r.config.layers)}});
    check_range("min_length", t.min_length, 2, kMaxInductionLength);
    check_range("max_length", t.max_length, t.min_length, kMaxInductionLength);
    r.config.max_positions = 2 * t.max_length + 1;
    r.config.readouts = 1;
    t.vocab = r.config.vocab_size;
    if (t.vocab < 3) throw Error("the vocabulary needs the start token and at least two more, got " + std::to_string(t.vocab));
  } else if (r.task == TaskKind::corpus) {
    CorpusTask& t = r.corpus;
    check_range("length", t.length, 2, kMaxTextTokens);
    r.config.max_positions = t.length;
    r.config.readouts = 1;
    if (t.data) {
      if (t.data->name != t.corpus) throw Error("internal: the recipe's corpus is " + t.corpus + ", its data " + t.data->name);
      r.config.vocab_size = t.data->tokenizer->vocab_size();
    }
  } else {
    RecallTask& t = r.recall;
    if (r.config.preset != Preset::attn_only) throw Error("the recall task trains an attn-only model (its unembedding is untied)");
    check_range("recall", t.readouts, 1, kMaxReadouts);
    check_range("length", t.length, t.readouts + 1, kMaxSeq);
    r.config.max_positions = t.length;
    r.config.readouts = t.readouts;
    t.vocab = r.config.vocab_size;
    if (t.vocab < 2) throw Error("the vocabulary needs at least two ids, got " + std::to_string(t.vocab));
  }
  validate_config(r.config);
  const uint64_t needed = training_bytes(r.config, r.batch, r.config.max_positions) >> 20;
  if (needed > static_cast<uint64_t>(kMaxTrainingMegabytes))
    throw Error(ErrorCode::training_too_large, "",
                {{"batch", std::to_string(r.batch)},
                 {"tokens", std::to_string(r.config.max_positions)},
                 {"needed", std::to_string(needed)},
                 {"max", std::to_string(kMaxTrainingMegabytes)}});
  return r;
}

double loss_floor(const Recipe& r) {
  if (r.task != TaskKind::induction) return 0.0;
  const InductionTask& t = r.induction;
  double sum = 0;
  for (int L = t.min_length; L <= t.max_length; ++L) sum += (L + 1) * std::log(static_cast<double>(r.config.vocab_size - 1)) / (2.0 * L);
  return sum / (t.max_length - t.min_length + 1);
}

Batch task_batch(Rng& rng, const Recipe& r) {
  if (r.task == TaskKind::corpus) {
    if (!r.corpus.data) throw Error("the corpus task needs its corpus loaded (npm run corpus prepares it)");
    return corpus_batch(rng, r.corpus, r.batch);
  }
  return r.task == TaskKind::recall ? recall_batch(rng, r.recall, r.batch) : induction_batch(rng, r.induction, r.batch);
}

std::map<std::string, std::string> training_metadata(const Recipe& r, int steps) {
  char task[256], text[640];
  if (r.task == TaskKind::corpus)
    std::snprintf(task, sizeof task, "corpus task: the next token on random windows of %d + 1 tokens of %s's training split",
                  r.corpus.length, r.corpus.corpus.c_str());
  else if (r.task == TaskKind::induction)
    std::snprintf(task, sizeof task, "induction task [0, s1..sL, s1..sL], s uniform in 1..%d, L uniform in %d..%d per batch",
                  r.config.vocab_size - 1, r.induction.min_length, r.induction.max_length);
  else
    std::snprintf(task, sizeof task,
                  "recall task: %d ids uniform in 0..%d, at each position i >= %d readout k predicts the id at i-k (k = 1..%d)",
                  r.recall.length, r.config.vocab_size - 1, r.recall.readouts, r.recall.readouts);
  std::snprintf(text, sizeof text,
                "%s; batch %d; %d steps; AdamW lr %g betas (%g, %g) eps %g, weight decay %g; init uniform with std %g "
                "(projections into the residual stream std/sqrt(2·layers)); seed %llu",
                task, r.batch, steps, r.adam.lr, r.adam.beta1, r.adam.beta2, r.adam.eps, r.adam.weight_decay, r.init_std,
                static_cast<unsigned long long>(r.config.seed));
  std::string recipe = text;
  if (r.warmup > 0 || r.final_lr != 1.0f) {
    std::snprintf(text, sizeof text, "; the rate warms up over %d steps, then falls linearly to %g of it", r.warmup, r.final_lr);
    recipe += text;
  }
  std::map<std::string, std::string> out = {{"recipe", recipe}, {"seed", std::to_string(r.config.seed)}, {"steps", std::to_string(steps)}};
  if (r.task == TaskKind::corpus) {
    out["task"] = "corpus";
    out["corpus"] = r.corpus.corpus;
    out["window"] = std::to_string(r.corpus.length);
    if (r.corpus.data) {
      out["tokenizer"] = r.corpus.data->tokenizer->kind();
      out["vocabulary"] = r.corpus.data->tokenizer->vocabulary().json;
    }
  } else {
    out["start_token"] = "0";
    out["tokenizer"] = "first-appearance";
  }
  return out;
}

uint64_t evaluation_seed(const Recipe& r) { return derive_seed(r.config.seed, kStreamEvaluate); }

Training::Training(Recipe recipe)
    : recipe_(checked_recipe(std::move(recipe))),
      trainer_(recipe_.config, random_weights(recipe_.config, recipe_.init_std), recipe_.adam),
      data_(derive_seed(recipe_.config.seed, kStreamData)) {}

Model Training::model() const {
  Model model = Model::from_weights(recipe_.config, trainer_.weights());
  if (recipe_.corpus.data) model.set_tokenizer(recipe_.corpus.data->tokenizer);
  return model;
}

float Training::step() {
  trainer_.adam().lr = scheduled_lr(recipe_, trainer_.steps_done() + 1);
  const Batch batch = task_batch(data_, recipe_);
  return trainer_.step(batch.ids, batch.targets, batch.B, batch.T);
}

double Training::induction_score(int sequences) const {
  if (recipe_.task != TaskKind::induction) throw Error("the induction score is the induction task's");
  return mha::induction_score(evaluate_induction(model(), recipe_.induction, derive_seed(recipe_.config.seed, kStreamCheck), sequences));
}

RecallScores Training::recall_scores(int sequences) const {
  if (recipe_.task != TaskKind::recall) throw Error("recall scores are the recall task's");
  return evaluate_recall(model(), recipe_.recall, evaluation_seed(recipe_), sequences);
}

}  // namespace mha
