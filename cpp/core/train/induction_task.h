// The task the shipped model learns: [start, s1 … sL, s1 … sL], random tokens s drawn with
// replacement from 1 … vocab−1 (0 is the start token), the loss on every next token. The first copy
// is unpredictable; the second is predictable only by finding where the current token stood before
// and copying what followed it: what induction heads do (Olsson et al., 2022).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "train/adam.h"
#include "model/model.h"
#include "base/random.h"
#include "train/task_samples.h"
#include "train/train.h"

namespace mha {

struct InductionTask {
  int vocab = 64;
  int min_length = 4, max_length = 30;  // L, drawn per batch
};

struct Batch {
  int B = 0, T = 0;
  std::vector<int32_t> ids, targets;  // (B, T); targets[t] = ids[t + 1], −1 at the last position
};

// One sequence of repeat length L.
std::vector<int32_t> induction_sequence(Rng& rng, int L, int vocab);
// B sequences of one L, drawn from rng (L uniform in [min_length, max_length]).
Batch induction_batch(Rng& rng, const InductionTask& task, int B);
// The positions of a sequence of repeat length L where induction predicts the next token: second-copy
// positions i = L+1 … 2L−1 whose token occurs once in the first copy (the earlier occurrence is at
// i − L, what followed it at i − L + 1). The task's accuracy is the first choice's there.
std::vector<int> induction_positions(const std::vector<int32_t>& ids, int L);
// One sequence of its own L, drawn as a batch draws them, as the analyses read it: the loss on
// every next token (as in training), the accuracy at induction_positions.
TaskSample induction_sample(Rng& rng, const InductionTask& task);

struct InductionScores {
  int length = 0;                 // L
  int positions = 0;              // counted second-copy positions (their token occurs once in the first copy)
  double accuracy = 0;            // first choice = the token that follows, at those positions
  double previous_token = 0;      // the best layer-0 head: mean over i ≥ 1 of a[i][i−1]
  int previous_token_head = -1;
  double induction = 0;           // the best last-layer head: mean over those positions of a[i][i−L+1]
  int induction_head = -1;
};

// For every L in [task.min_length, task.max_length]: `sequences` fresh sequences from `seed`, run
// through the model, the scores averaged over them. The model must have at least 2 layers.
std::vector<InductionScores> evaluate_induction(const Model& model, const InductionTask& task, uint64_t seed,
                                                int sequences);

// The mean over L of the best last-layer head's induction score: one number for "has the model
// found induction yet". The phase change is the first step where it reaches kPhaseChangeScore.
double induction_score(const std::vector<InductionScores>& scores);
constexpr double kPhaseChangeScore = 0.7;

// A whole training run of the induction task, as `mha train`, the WebAssembly module and the
// benchmarks drive it: weights drawn from config.seed, batches from their own stream of the seed.
struct InductionRecipe {
  Config config;       // attn-only or gpt2; max_positions is set to 2·max_length + 1
  InductionTask task;  // task.vocab is config.vocab_size
  int batch = 16;
  AdamSettings adam;
  float init_std = 0.1f;
  int steps = 3000;  // how long `mha train` and the page train it
};

// The shipped model's recipe (models/induction.safetensors, `npm run train`), which `mha train`, the
// page's trainer and the benchmarks start from: an attn-only model of 2 layers, 4 heads, d_model 64,
// vocabulary 64, seed 2, and the fields' defaults above. One home for them all.
InductionRecipe induction_recipe();
// The same task at half the width, for a phone's "Train it yourself": d_model 32, 2 heads,
// vocabulary 32, L up to 16, batch 8, lr 5e-3.
InductionRecipe induction_recipe_small();

// What a trained model's file says about how it was made (its __metadata__): the recipe in words,
// the seed, the steps, and that it reads text by first appearance after the start token 0.
std::map<std::string, std::string> training_metadata(const InductionRecipe& recipe, int steps);

class InductionTraining {
 public:
  explicit InductionTraining(InductionRecipe recipe);
  float step();  // one batch; the loss before the update
  // induction_score() of the current weights on `sequences` fresh sequences per L, always the same
  // ones for a seed: the check for the phase change, shared by `mha train`, the module and benchmarks.
  double induction_score(int sequences = 1) const;
  const Trainer& trainer() const { return trainer_; }
  const InductionRecipe& recipe() const { return recipe_; }
  Model model() const { return Model::from_weights(recipe_.config, trainer_.weights()); }

 private:
  InductionRecipe recipe_;
  Trainer trainer_;
  Rng data_;
};

}  // namespace mha
