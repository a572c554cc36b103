#include "train/induction_task.h"

#include <algorithm>
#include <cstdio>

#include "base/error.h"

namespace mha {

std::vector<int32_t> induction_sequence(Rng& rng, int L, int vocab) {
  std::vector<int32_t> ids(static_cast<size_t>(2 * L + 1), 0);
  for (int i = 1; i <= L; ++i) {
    // uniform in [1, vocab): the top bits of a draw, scaled, so every platform draws the same ids
    ids[i] = 1 + static_cast<int32_t>((static_cast<uint64_t>(rng.next_u32()) * static_cast<uint64_t>(vocab - 1)) >> 32);
    ids[i + L] = ids[i];
  }
  return ids;
}

Batch induction_batch(Rng& rng, const InductionTask& task, int B) {
  const int span = task.max_length - task.min_length + 1;
  const int L = task.min_length + static_cast<int>((static_cast<uint64_t>(rng.next_u32()) * static_cast<uint64_t>(span)) >> 32);
  Batch batch;
  batch.B = B;
  batch.T = 2 * L + 1;
  for (int b = 0; b < B; ++b) {
    const std::vector<int32_t> seq = induction_sequence(rng, L, task.vocab);
    batch.ids.insert(batch.ids.end(), seq.begin(), seq.end());
    for (size_t t = 0; t < seq.size(); ++t) batch.targets.push_back(t + 1 < seq.size() ? seq[t + 1] : -1);
  }
  return batch;
}

std::vector<InductionScores> evaluate_induction(const Model& model, const InductionTask& task, uint64_t seed,
                                                int sequences, const std::function<bool()>& stop) {
  const Config& c = model.config();
  if (c.layers < 2) throw Error(ErrorCode::induction_needs_two_layers, "layers", {{"value", std::to_string(c.layers)}});
  if (sequences < 1 || sequences > kMaxEvalSequences)
    throw Error(ErrorCode::out_of_range, "sequences",
                {{"min", "1"}, {"max", std::to_string(kMaxEvalSequences)}, {"value", std::to_string(sequences)}});
  Rng rng(seed);
  std::vector<InductionScores> out;
  Trace trace;
  const std::string first = "layers.0.weights", last = "layers." + std::to_string(c.layers - 1) + ".weights";
  for (int L = task.min_length; L <= task.max_length; ++L) {
    InductionScores s;
    s.length = L;
    const int T = 2 * L + 1, V = c.vocab_size;
    std::vector<double> prev(static_cast<size_t>(c.heads), 0.0), induction(static_cast<size_t>(c.heads), 0.0);
    int right = 0;
    for (int n = 0; n < sequences; ++n) {
      if (stop && stop()) return out;
      const std::vector<int32_t> ids = induction_sequence(rng, L, task.vocab);
      model.run_ids_into(trace, ids);
      const Tensor& a0 = trace.get(first);
      const Tensor& a1 = trace.get(last);
      const Tensor& probs = trace.get("probs");
      for (int h = 0; h < c.heads; ++h) {
        const float* a = a0.ptr() + static_cast<size_t>(h) * T * T;
        double sum = 0;
        for (int i = 1; i < T; ++i) sum += a[i * T + i - 1];
        prev[h] += sum / (T - 1);
      }
      // Second-copy positions i = L+k (k = 1 … L−1: the last has no next token) whose token occurs
      // once in the first copy: the earlier occurrence is at k, what followed it at k + 1 = i − L + 1.
      for (int i = L + 1; i < 2 * L; ++i) {
        if (std::count(ids.begin() + 1, ids.begin() + L + 1, ids[i]) != 1) continue;
        ++s.positions;
        const float* p = probs.ptr() + static_cast<size_t>(i) * V;
        right += static_cast<int>(std::max_element(p, p + V) - p) == ids[i + 1];
        for (int h = 0; h < c.heads; ++h) induction[h] += a1.ptr()[(static_cast<size_t>(h) * T + i) * T + (i - L + 1)];
      }
    }
    for (int h = 0; h < c.heads; ++h) {
      const double p = prev[h] / sequences, ind = s.positions ? induction[h] / s.positions : 0.0;
      if (p > s.previous_token) s.previous_token = p, s.previous_token_head = h;
      if (ind > s.induction) s.induction = ind, s.induction_head = h;
    }
    s.accuracy = s.positions ? static_cast<double>(right) / s.positions : 0.0;
    out.push_back(s);
  }
  return out;
}

double induction_score(const std::vector<InductionScores>& scores) {
  if (scores.empty()) return 0.0;
  double sum = 0.0;
  for (const InductionScores& s : scores) sum += s.induction;
  return sum / static_cast<double>(scores.size());
}

namespace {
constexpr uint64_t kStreamData = 2000;   // the batches' stream of the seed, fixed forever
constexpr uint64_t kStreamCheck = 4000;  // the phase-change check's sequences

void check_range(const char* field, int value, int min, int max) {
  using std::to_string;
  if (value < min || value > max)
    throw Error(ErrorCode::out_of_range, field,
                {{"min", to_string(min)}, {"max", to_string(max)}, {"value", to_string(value)}});
}

// Sizes first (so 2·max_length + 1 cannot overflow), then the config, then the memory they imply.
InductionRecipe checked(InductionRecipe r) {
  if (!has_blocks(r.config.preset)) throw Error("the induction task trains an attn-only or gpt2 model");
  if (r.config.layers < 2)
    throw Error(ErrorCode::induction_needs_two_layers, "layers", {{"value", std::to_string(r.config.layers)}});
  check_range("min_length", r.task.min_length, 2, kMaxInductionLength);
  check_range("max_length", r.task.max_length, r.task.min_length, kMaxInductionLength);
  check_range("batch", r.batch, 1, kMaxBatch);
  if (!(r.init_std > 0.0f)) throw Error("init_std must be positive");
  if (!(r.adam.lr > 0.0f)) throw Error("the learning rate must be positive");
  r.config.causal = true;
  r.config.max_positions = 2 * r.task.max_length + 1;
  r.task.vocab = r.config.vocab_size;
  if (r.task.vocab < 3) throw Error("the vocabulary needs the start token and at least two more, got " + std::to_string(r.task.vocab));
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
}  // namespace

InductionRecipe induction_recipe() {
  InductionRecipe r;
  Config& c = r.config;
  c.preset = Preset::attn_only;
  c.layers = 2, c.heads = 4, c.d_model = 64, c.vocab_size = 64, c.causal = true, c.seed = 2;
  c.max_positions = 2 * r.task.max_length + 1;
  return r;
}

InductionRecipe induction_recipe_small() {
  InductionRecipe r = induction_recipe();
  r.config.d_model = 32, r.config.heads = 2, r.config.vocab_size = 32;
  r.task.max_length = 16;
  r.config.max_positions = 2 * r.task.max_length + 1;
  r.batch = 8;
  r.adam.lr = 5e-3f;
  return r;
}

std::map<std::string, std::string> training_metadata(const InductionRecipe& r, int steps) {
  char text[512];
  std::snprintf(text, sizeof text,
                "induction task [0, s1..sL, s1..sL], s uniform in 1..%d, L uniform in %d..%d per batch; batch %d; "
                "%d steps; AdamW lr %g betas (%g, %g) eps %g, weight decay %g; init uniform with std %g "
                "(projections into the residual stream std/sqrt(2·layers)); seed %llu",
                r.config.vocab_size - 1, r.task.min_length, r.task.max_length, r.batch, steps, r.adam.lr, r.adam.beta1,
                r.adam.beta2, r.adam.eps, r.adam.weight_decay, r.init_std, static_cast<unsigned long long>(r.config.seed));
  return {{"recipe", text}, {"seed", std::to_string(r.config.seed)}, {"steps", std::to_string(steps)},
          {"start_token", "0"}, {"tokenizer", "first-appearance"}};
}

InductionTraining::InductionTraining(InductionRecipe recipe)
    : recipe_(checked(std::move(recipe))),
      trainer_(recipe_.config, random_weights(recipe_.config, recipe_.init_std), recipe_.adam),
      data_(derive_seed(recipe_.config.seed, kStreamData)) {}

double InductionTraining::induction_score(int sequences) const {
  return mha::induction_score(evaluate_induction(model(), recipe_.task, derive_seed(recipe_.config.seed, kStreamCheck), sequences));
}

float InductionTraining::step() {
  const Batch batch = induction_batch(data_, recipe_.task, recipe_.batch);
  return trainer_.step(batch.ids, batch.targets, batch.B, batch.T);
}

}  // namespace mha
