#include "analysis/importance.h"

#include <cmath>
#include <string>

#include "base/error.h"
#include "model/backward.h"
#include "model/parameters.h"

namespace mha {

HeadImportance head_importance(const Model& model, const std::vector<TaskSample>& samples) {
  const Config& c = model.config();
  if (!has_blocks(c.preset)) throw Error(ErrorCode::needs_blocks, "model");
  if (samples.empty()) throw Error("internal: head importance needs at least one sequence");
  const ModelWeights weights = model.model_weights();  // what the backward reads: every parameter as a tensor
  const PreparedModel& packed = model.packed_weights().packed;
  ModelWeights grads = zeros_like(c);  // the backward's parameter gradients, unread here
  ModelBackward backward;
  Trace acts;
  HeadGates gate_grads;
  HeadImportance out;
  out.importance.assign(static_cast<size_t>(c.layers), std::vector<double>(static_cast<size_t>(c.heads), 0.0));
  for (const TaskSample& s : samples) {
    const int T = static_cast<int>(s.ids.size());
    model_forward(acts, s.ids, 1, T, weights, packed, c);
    backward.run(grads, &gate_grads, acts, s.ids, s.targets, 1, T, weights, c);
    for (int l = 0; l < c.layers; ++l)
      for (int h = 0; h < c.heads; ++h) out.importance[l][h] += std::fabs(static_cast<double>(gate_grads[l][h]));
  }
  out.normalised = out.importance;
  for (size_t l = 0; l < out.importance.size(); ++l) {
    double norm = 0;
    for (double& v : out.importance[l]) {
      v /= static_cast<double>(samples.size());
      norm += v * v;
    }
    norm = std::sqrt(norm);
    for (size_t h = 0; h < out.importance[l].size(); ++h) out.normalised[l][h] = norm > 0 ? out.importance[l][h] / norm : 0.0;
  }
  return out;
}

void set_gradient_metrics(HeadMetrics& m, const HeadImportance& importance, size_t l, size_t h) {
  m.importance = importance.importance.at(l).at(h);
  m.importance_normalised = importance.normalised.at(l).at(h);
}

void add_importance(std::vector<LayerAnalysis>& layers, const HeadImportance& importance) {
  if (layers.size() != importance.importance.size()) throw Error("internal: importance for another number of layers");
  for (size_t l = 0; l < layers.size(); ++l)
    for (size_t h = 0; h < layers[l].heads.size(); ++h) set_gradient_metrics(layers[l].heads[h], importance, l, h);
}

nlohmann::json importance_to_json(const HeadImportance& importance) {
  nlohmann::json layers = nlohmann::json::array();
  for (size_t l = 0; l < importance.importance.size(); ++l) {
    nlohmann::json heads = nlohmann::json::array();
    for (size_t h = 0; h < importance.importance[l].size(); ++h) {
      HeadMetrics m;
      set_gradient_metrics(m, importance, l, h);
      nlohmann::json head = nlohmann::json::object();
      for (const HeadMetricSpec& spec : head_metric_table())
        if (spec.gradient) head[spec.id] = *(m.*spec.value);
      heads.push_back(head);
    }
    layers.push_back({{"heads", heads}});
  }
  return {{"layers", layers}};
}

}  // namespace mha
