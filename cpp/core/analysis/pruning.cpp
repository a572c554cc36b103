#include "analysis/pruning.h"

#include <algorithm>
#include <cstdint>

#include "analysis/importance.h"
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
    for (int t : s.scored) {
      const float* p = probs + static_cast<size_t>(t) * c.vocab_size;
      right += static_cast<int32_t>(std::max_element(p, p + c.vocab_size) - p) == s.targets.at(static_cast<size_t>(t));
      ++scored;
    }
  }
  return {loss / static_cast<double>(samples.size()), scored ? static_cast<double>(right) / scored : 0.0};
}

std::vector<PruneStep> prune_heads(const Model& model, const std::vector<TaskSample>& samples) {
  const Config& c = model.config();
  const HeadImportance importance = head_importance(model, samples);
  std::vector<std::array<int, 2>> order;
  for (int l = 0; l < c.layers; ++l)
    for (int h = 0; h < c.heads; ++h) order.push_back({l, h});
  std::stable_sort(order.begin(), order.end(), [&](const std::array<int, 2>& a, const std::array<int, 2>& b) {
    return importance.importance[a[0]][a[1]] < importance.importance[b[0]][b[1]];
  });
  HeadGates gates(static_cast<size_t>(c.layers), std::vector<float>(static_cast<size_t>(c.heads), 1.0f));
  std::vector<PruneStep> steps;
  for (size_t removed = 0; removed <= order.size(); ++removed) {
    if (removed > 0) gates[order[removed - 1][0]][order[removed - 1][1]] = 0.0f;
    const TaskScore score = score_task(model, samples, gates);
    steps.push_back({std::vector<std::array<int, 2>>(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(removed)),
                     score.loss, score.accuracy});
  }
  return steps;
}

nlohmann::json prune_to_json(const std::vector<PruneStep>& steps) {
  nlohmann::json out = nlohmann::json::array();
  for (const PruneStep& s : steps) out.push_back({{"removed", s.removed}, {"loss", s.loss}, {"accuracy", s.accuracy}});
  return {{"steps", out}};
}

}  // namespace mha
