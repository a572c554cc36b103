#include "train/induction_task.h"

#include <algorithm>

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

namespace {
// L uniform in [min_length, max_length], from the top bits of a draw as induction_sequence draws ids.
int draw_length(Rng& rng, const InductionTask& task) {
  const int span = task.max_length - task.min_length + 1;
  return task.min_length + static_cast<int>((static_cast<uint64_t>(rng.next_u32()) * static_cast<uint64_t>(span)) >> 32);
}
}  // namespace

Batch induction_batch(Rng& rng, const InductionTask& task, int B) {
  const int L = draw_length(rng, task);
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

std::vector<int> induction_positions(const std::vector<int32_t>& ids, int L) {
  std::vector<int> out;
  for (int i = L + 1; i < 2 * L; ++i)
    if (std::count(ids.begin() + 1, ids.begin() + L + 1, ids[i]) == 1) out.push_back(i);
  return out;
}

TaskSample induction_sample(Rng& rng, const InductionTask& task) {
  const int L = draw_length(rng, task);
  TaskSample s = next_token_sample(induction_sequence(rng, L, task.vocab));
  s.scored = induction_positions(s.ids, L);
  return s;
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
      for (int i : induction_positions(ids, L)) {
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

}  // namespace mha
