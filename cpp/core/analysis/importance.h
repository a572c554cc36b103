// Which heads matter, measured from the gradient (Michel, Levy and Neubig 2019, "Are Sixteen Heads
// Really Better than One?"): each head's output is multiplied by a gate ξ_h (forward.h's HeadGates)
// and its importance is |∂L/∂ξ_h| at ξ = 1, averaged over sequences, L the mean next-token
// cross-entropy of a sequence (mean_cross_entropy over its targets, backward.h): the first-order
// change of the loss when the head is removed (pruning.h removes them in that order).
//
// Loss-agnostic: it reads TaskSamples (task_samples.h), so a task is only its samples.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "analysis/head_metrics.h"
#include "model/model.h"
#include "train/task_samples.h"

namespace mha {

// How many fresh sequences of the model's task `--samples` averages over when asked for none, the
// seed they are drawn from, and the most a caller may ask for. The CLI's help and the page read these.
constexpr int kImportanceSamples = 64;
constexpr uint64_t kImportanceSeed = 1;
constexpr int kMaxImportanceSamples = 4096;

struct HeadImportance {
  std::vector<std::vector<double>> importance;  // [layer][head]: mean over the samples of |∂L/∂ξ_h|
  std::vector<std::vector<double>> normalised;  // each divided by the ℓ2 norm of its layer's (Michel et al.)
};

// One forward and one backward pass (the one forward and backward) per sample, at ξ = 1. A model of
// blocks; every sample's ids within its vocabulary and positions (mha::Error says which is not).
// The backward reads every parameter as a tensor: the weights are unpacked once per call.
HeadImportance head_importance(const Model& model, const std::vector<TaskSample>& samples);

// head_metrics.h's importance and importance_normalised of every head, or of head h of layer l.
void add_importance(std::vector<LayerAnalysis>& layers, const HeadImportance& importance);
void set_gradient_metrics(HeadMetrics& metrics, const HeadImportance& importance, size_t l, size_t h);
// {"layers": [{"heads": [{"importance": …, "importance_normalised": …}]}]}: the keys of the head metric table.
nlohmann::json importance_to_json(const HeadImportance& importance);

}  // namespace mha
