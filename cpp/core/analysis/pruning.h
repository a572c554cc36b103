// The pruning curve (Michel et al. 2019, §4): every head removed one at a time, in ascending
// importance (importance.h), with the loss and the task's accuracy after each removal: how many heads
// a model can lose before its task breaks. Loss-agnostic, as importance.h is.
#pragma once

#include <array>
#include <nlohmann/json.hpp>
#include <vector>

#include "analysis/importance.h"
#include "model/model.h"
#include "train/task_samples.h"

namespace mha {

// The mean over the samples of each one's loss, and the fraction of their scored positions whose
// first choice is the target, with these heads' gates (forward.h; empty: all on).
struct TaskScore {
  double loss = 0, accuracy = 0;
};
TaskScore score_task(const Model& model, const std::vector<TaskSample>& samples, const HeadGates& gates = {});

struct PruneStep {
  std::vector<std::array<int, 2>> removed;  // [layer, head], in the order they were removed
  double loss = 0, accuracy = 0;
};
// The curve and the importances its order comes from: a reader sees why each head went when it did.
struct Pruning {
  HeadImportance importance;  // on the same samples
  std::vector<PruneStep> steps;
};
// Every head removed one at a time (its gate set to 0), in ascending importance on the samples (ties
// in layer, head order): the first step removes none, the last all of them.
Pruning prune_heads(const Model& model, const std::vector<TaskSample>& samples);
// {"importance": importance_to_json's {"layers": …}, "steps": [{"removed": [[layer, head], …], "loss": …, "accuracy": …}, …]}
nlohmann::json prune_to_json(const Pruning& pruning);

}  // namespace mha
