#include "train/recall_task.h"

#include <algorithm>

#include "base/error.h"
#include "kernels/loss.h"

namespace mha {

std::vector<int32_t> recall_sequence(Rng& rng, const RecallTask& task) {
  std::vector<int32_t> ids(static_cast<size_t>(task.length));
  // uniform in [0, vocab): the top bits of a draw, scaled, so every platform draws the same ids
  for (int32_t& id : ids) id = static_cast<int32_t>((static_cast<uint64_t>(rng.next_u32()) * static_cast<uint64_t>(task.vocab)) >> 32);
  return ids;
}

std::vector<int32_t> recall_targets(const std::vector<int32_t>& ids, int K) {
  const int T = static_cast<int>(ids.size());
  std::vector<int32_t> targets(static_cast<size_t>(T) * K, -1);
  for (int i = K; i < T; ++i)
    for (int k = 1; k <= K; ++k) targets[static_cast<size_t>(i) * K + k - 1] = ids[static_cast<size_t>(i - k)];
  return targets;
}

Batch recall_batch(Rng& rng, const RecallTask& task, int B) {
  Batch batch;
  batch.B = B;
  batch.T = task.length;
  for (int b = 0; b < B; ++b) {
    const std::vector<int32_t> ids = recall_sequence(rng, task);
    const std::vector<int32_t> targets = recall_targets(ids, task.readouts);
    batch.ids.insert(batch.ids.end(), ids.begin(), ids.end());
    batch.targets.insert(batch.targets.end(), targets.begin(), targets.end());
  }
  return batch;
}

RecallScores evaluate_recall(const Model& model, const RecallTask& task, uint64_t seed, int sequences) {
  const Config& c = model.config();
  const int K = task.readouts, T = task.length, V = c.vocab_size, H = c.heads;
  if (c.readouts != K) throw Error("the model has " + std::to_string(c.readouts) + " readouts; the task " + std::to_string(K));
  if (sequences < 1) throw Error("score on at least one sequence");
  Rng rng(seed);
  Trace trace;
  std::vector<long> right(static_cast<size_t>(K), 0);
  std::vector<std::vector<double>> stripe(static_cast<size_t>(H), std::vector<double>(static_cast<size_t>(K), 0.0));
  double loss = 0;
  const std::string last = layer_name(c.layers - 1, "weights");
  for (int n = 0; n < sequences; ++n) {
    const std::vector<int32_t> ids = recall_sequence(rng, task);
    model.run_ids_into(trace, ids);
    const float* probs = trace.get("probs").ptr();
    const float* logits = trace.get("logits").ptr();
    const float* weights = trace.get(last).ptr();
    for (int i = K; i < T; ++i)
      for (int k = 1; k <= K; ++k) {
        const size_t row = static_cast<size_t>(i) * K + k - 1;
        const float* p = probs + row * V;
        const int32_t want = ids[static_cast<size_t>(i - k)];
        right[k - 1] += static_cast<int>(std::max_element(p, p + V) - p) == want;
        float row_loss = 0;
        crossentropy_forward(&row_loss, logits + row * V, &want, 1, V);
        loss += row_loss;
        for (int h = 0; h < H; ++h) stripe[h][k - 1] += weights[(static_cast<size_t>(h) * T + i) * T + i - k];
      }
  }
  RecallScores s;
  const double counted = static_cast<double>(sequences) * (T - K);
  s.loss = loss / (counted * K);
  for (int k = 0; k < K; ++k) {
    s.accuracy.push_back(static_cast<double>(right[k]) / counted);
    s.mean_accuracy += s.accuracy.back() / K;
  }
  for (std::vector<double>& row : stripe)
    for (double& v : row) v /= counted;
  s.stripe = std::move(stripe);
  return s;
}

}  // namespace mha
