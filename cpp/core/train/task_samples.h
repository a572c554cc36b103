// Sequences of a model's task as the analyses read them (head importance, pruning): ids, the targets
// of the one loss (mean_cross_entropy, backward.h) and the positions the task's accuracy counts. The
// analyses know nothing of the task beyond this, so a model trained on another task only needs its
// own samples here.
#pragma once

#include <cstdint>
#include <vector>

#include "base/config.h"

namespace mha {

struct TaskSample {
  std::vector<int32_t> ids;      // T ids
  // T · readouts, a row per position and readout (as the logits' rows): the id each should name (the
  // next one, or a recall model's readout k − 1 the id k back), −1 where no loss is counted
  std::vector<int32_t> targets;
  std::vector<int> scored;  // the rows whose first choice the task's accuracy counts
};

// The ids as they are: every next token counted, by the loss and by the accuracy; for a model of K
// readouts (the recall task) the K ids before each position i ≥ K.
TaskSample next_token_sample(const std::vector<int32_t>& ids, int readouts = 1);

// n fresh sequences of the task a model of blocks was trained on, drawn from seed: the recall task
// (recall_task.h) for a model of K > 1 readouts, as long as its positions; else the induction task
// (induction_task.h) over the model's vocabulary, its repeat as long as its positions allow (at most
// the recipe's). Throws mha::Error for a single attention layer, n < 1 or a vocabulary under 3 ids.
std::vector<TaskSample> task_samples(const Config& config, int n, uint64_t seed);

}  // namespace mha
