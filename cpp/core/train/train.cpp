#include "train/train.h"

#include <cmath>
#include <string>

#include "base/error.h"
#include "model/parameters.h"
#include "model/stages.h"

namespace mha {

uint64_t training_bytes(const Config& config, int B, int T) {
  const uint64_t floats = 5 * static_cast<uint64_t>(parameter_count(config)) +
                          2 * static_cast<uint64_t>(B) * static_cast<uint64_t>(trace_floats(config, T, /*training=*/true));
  return floats * sizeof(float);
}

Trainer::Trainer(const Config& config, ModelWeights weights, const AdamSettings& adam, KernelPath path)
    : config_(config), weights_(std::move(weights)), adam_(adam), path_(path) {
  if (!has_blocks(config_.preset)) throw Error("training needs a model with blocks (attn-only or gpt2)");
  check_model_weights(weights_, config_);
  grads_ = zeros_like(config_);
  adam_m_ = zeros_like(config_);
  adam_v_ = zeros_like(config_);
}

void Trainer::restore(ModelWeights weights, ModelWeights adam_m, ModelWeights adam_v, int step) {
  if (step < 0) throw Error("a training step cannot be negative, got " + std::to_string(step));
  check_model_weights(weights, config_);
  check_model_weights(adam_m, config_);
  check_model_weights(adam_v, config_);
  weights_ = std::move(weights), adam_m_ = std::move(adam_m), adam_v_ = std::move(adam_v), step_ = step;
}

float Trainer::loss_and_gradients(const std::vector<int32_t>& ids, const std::vector<int32_t>& targets, int B, int T) {
  if (targets.size() != ids.size() * static_cast<size_t>(config_.readouts))
    throw Error("a batch of " + std::to_string(B) + " × " + std::to_string(T) + " needs " + std::to_string(config_.readouts) +
                " target(s) per id");
  // The SIMD path reads matrices packed: packed again for each step's weights, as a product of
  // unpacked ones would pack them anyway.
  const PreparedModel packed = path_ == KernelPath::simd ? prepare_model(weights_, config_) : PreparedModel{};
  const ForwardOptions options{path_, nullptr};
  model_forward(acts_, ids, B, T, weights_, packed, config_, options);
  const float loss = mean_cross_entropy(acts_, targets, config_);
  backward_.run(grads_, nullptr, acts_, ids, targets, B, T, weights_, config_, options);
  return loss;
}

float Trainer::step(const std::vector<int32_t>& ids, const std::vector<int32_t>& targets, int B, int T) {
  const float loss = loss_and_gradients(ids, targets, B, T);
  if (!std::isfinite(loss)) throw Error("the loss is not finite at step " + std::to_string(step_ + 1) + ": lower the learning rate");
  ++step_;
  std::vector<Tensor*> grads, ms, vs;
  const auto collect = [](std::vector<Tensor*>& out) {
    return [&out](const std::string&, const ParameterSpec&, Tensor& t) { out.push_back(&t); };
  };
  for_each_parameter(grads_, config_, collect(grads));
  for_each_parameter(adam_m_, config_, collect(ms));
  for_each_parameter(adam_v_, config_, collect(vs));
  size_t i = 0;
  for_each_parameter(weights_, config_, [&](const std::string&, const ParameterSpec&, Tensor& p) {
    adamw_update(p.ptr(), grads[i]->ptr(), ms[i]->ptr(), vs[i]->ptr(), p.numel(), adam_, step_);
    ++i;
  });
  return loss;
}

}  // namespace mha
