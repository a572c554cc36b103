#include "analysis/pruning.h"

#include <algorithm>
#include <cstdint>

#include "base/error.h"
#include "model/backward.h"

namespace mha {

TaskScore score_task(const Model& model, const std::vector<TaskSample>& samples, const HeadGates& gates) {
  const Config& c = model.config();
  if (!has_blocks(c.preset)) throw Error(ErrorCode::needs_blocks, "model");
  if (samples.empty()) throw Error("internal: scoring a task needs at least one sequence");
  Trace trace;
  double loss = 0;
  int right = 0, scored = 0;
  for (const TaskSample& s : samples) {
    model.run_ids_into(trace, s.ids, KernelPath::simd, gates);
    loss += mean_cross_entropy(trace, s.targets, c);
    const float* probs = trace.get(-1, "probs").ptr();
    for (int row : s.scored) {  // a position's row, or a recall model's (position, readout) row
      const float* p = probs + static_cast<size_t>(row) * c.vocab_size;
      right += static_cast<int32_t>(std::max_element(p, p + c.vocab_size) - p) == s.targets.at(static_cast<size_t>(row));
      ++scored;
    }
  }
  return {loss / static_cast<double>(samples.size()), scored ? static_cast<double>(right) / scored : 0.0};
}

Pruning prune_heads(const Model& model, const std::vector<TaskSample>& samples) {
  const Config& c = model.config();
  Pruning out{head_importance(model, samples), {}};
  const HeadImportance& importance = out.importance;
  // Least important first, ties in layer, head order: each next head the least important one left
  // (a few hundred heads at most, and no sort to carry in the WebAssembly module).
  std::vector<std::array<int, 2>> order;
  std::vector<std::vector<bool>> taken(static_cast<size_t>(c.layers), std::vector<bool>(static_cast<size_t>(c.heads), false));
  while (order.size() < static_cast<size_t>(c.layers) * c.heads) {
    std::array<int, 2> next = {-1, -1};
    for (int l = 0; l < c.layers; ++l)
      for (int h = 0; h < c.heads; ++h)
        if (!taken[l][h] && (next[0] < 0 || importance.importance[l][h] < importance.importance[next[0]][next[1]])) next = {l, h};
    taken[next[0]][next[1]] = true;
    order.push_back(next);
  }
  HeadGates gates(static_cast<size_t>(c.layers), std::vector<float>(static_cast<size_t>(c.heads), 1.0f));
  std::vector<PruneStep>& steps = out.steps;
  for (size_t removed = 0; removed <= order.size(); ++removed) {
    if (removed > 0) gates[order[removed - 1][0]][order[removed - 1][1]] = 0.0f;
    const TaskScore score = score_task(model, samples, gates);
    steps.push_back({std::vector<std::array<int, 2>>(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(removed)),
                     score.loss, score.accuracy});
  }
  return out;
}

nlohmann::json prune_to_json(const Pruning& pruning) {
  nlohmann::json steps = nlohmann::json::array();
  for (const PruneStep& s : pruning.steps) steps.push_back({{"removed", s.removed}, {"loss", s.loss}, {"accuracy", s.accuracy}});
  return {{"importance", importance_to_json(pruning.importance)}, {"steps", steps}};
}

}  // namespace mha
