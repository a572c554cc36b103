// The task the shipped model learns: [start, s1 … sL, s1 … sL], random tokens s drawn with
// replacement from 1 … vocab−1 (0 is the start token), the loss on every next token. The first copy
// is unpredictable; the second is predictable only by finding where the current token stood before
// and copying what followed it: what induction heads do (Olsson et al., 2022).
#pragma once

#include <cstdint>
#include <vector>

#include "base/random.h"
#include "model/model.h"
#include "train/task_samples.h"
#include "train/train.h"

namespace mha {

struct InductionTask {
  int vocab = 64;
  int min_length = 4, max_length = 30;  // L, drawn per batch
};

// One sequence of repeat length L.
std::vector<int32_t> induction_sequence(Rng& rng, int L, int vocab);
// B sequences of one L, drawn from rng (L uniform in [min_length, max_length]); targets[t] = ids[t + 1],
// −1 at the last position.
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

// For every L in [task.min_length, task.max_length]: `sequences` (1 … kMaxEvalSequences) fresh sequences
// from `seed`, run through the model, the scores averaged over them. The model must have at least 2
// layers. `stop`, asked before each sequence, ends it early (returning the lengths done) when it says
// so: a Ctrl-C is honoured within one run, not at the end of a long evaluation.
std::vector<InductionScores> evaluate_induction(const Model& model, const InductionTask& task, uint64_t seed,
                                                int sequences, const std::function<bool()>& stop = nullptr);
constexpr int kMaxEvalSequences = 100000;

// The mean over L of the best last-layer head's induction score: one number for "has the model
// found induction yet". The phase change is the first step where it reaches kPhaseChangeScore,
// checked every kPhaseChangeEvery steps (the page, the benchmarks, README's "step 800"): a step that
// depends only on the seed, never on when a check happened to run.
double induction_score(const std::vector<InductionScores>& scores);
constexpr double kPhaseChangeScore = 0.7;
constexpr int kPhaseChangeEvery = 50;

// The longest repeated part: a sequence of 2·L + 1 tokens fits the most positions a model may have.
constexpr int kMaxInductionLength = (kMaxSeq - 1) / 2;

}  // namespace mha
