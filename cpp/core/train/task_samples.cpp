#include "train/task_samples.h"

#include <algorithm>
#include <string>

#include "base/error.h"
#include "base/random.h"
#include "train/induction_task.h"
#include "train/recall_task.h"

namespace mha {

TaskSample next_token_sample(const std::vector<int32_t>& ids, int readouts) {
  TaskSample s;
  s.ids = ids;
  if (readouts > 1) {
    s.targets = recall_targets(ids, readouts);
    for (size_t row = 0; row < s.targets.size(); ++row)
      if (s.targets[row] >= 0) s.scored.push_back(static_cast<int>(row));
    return s;
  }
  s.targets.assign(ids.size(), -1);
  for (size_t t = 0; t + 1 < ids.size(); ++t) {
    s.targets[t] = ids[t + 1];
    s.scored.push_back(static_cast<int>(t));
  }
  return s;
}

std::vector<TaskSample> task_samples(const Config& c, int n, uint64_t seed) {
  if (!has_blocks(c.preset))
    throw Error(ErrorCode::needs_blocks, "model");
  if (n < 1) throw Error("internal: ask for at least one sequence of the task");
  Rng rng(seed);
  std::vector<TaskSample> out;
  if (c.readouts > 1) {
    RecallTask recall;
    recall.readouts = c.readouts, recall.length = c.max_positions, recall.vocab = c.vocab_size;
    for (int i = 0; i < n; ++i) out.push_back(next_token_sample(recall_batch(rng, recall, 1).ids, c.readouts));
    return out;
  }
  InductionTask task;
  task.vocab = c.vocab_size;
  task.max_length = std::min(task.max_length, (c.max_positions - 1) / 2);  // 2L + 1 tokens
  task.min_length = std::min(task.min_length, task.max_length);
  if (task.vocab < 3 || task.max_length < 2)
    throw Error("the induction task needs a vocabulary of at least 3 ids and 5 positions; the model has " +
                std::to_string(c.vocab_size) + " and " + std::to_string(c.max_positions));
  for (int i = 0; i < n; ++i) out.push_back(induction_sample(rng, task));
  return out;
}

}  // namespace mha
