#include "catalog.h"

#include "analysis/head_metrics.h"
#include "base/config.h"
#include "base/error_codes.h"
#include "train/induction_task.h"

namespace mha {

namespace {

using nlohmann::json;

// A Config as the JavaScript API spells its options (web/mha.js: new Model({dModel, heads, …})).
json config_json(const Config& c) {
  return {{"model", preset_name(c.preset)}, {"layers", c.layers},     {"dModel", c.d_model},
          {"heads", c.heads},               {"kvHeads", c.kv_heads},   {"causal", c.causal},
          {"seed", c.seed},                 {"vocabSize", c.vocab_size}, {"maxPositions", c.max_positions}};
}

// A recipe as the module's Trainer takes it (options and all).
json recipe_json(const InductionRecipe& r) {
  json out = config_json(r.config);
  out.update({{"task", "induction"},        {"minLength", r.task.min_length}, {"maxLength", r.task.max_length},
              {"batch", r.batch},           {"lr", r.adam.lr},                {"beta1", r.adam.beta1},
              {"beta2", r.adam.beta2},      {"eps", r.adam.eps},              {"weightDecay", r.adam.weight_decay},
              {"initStd", r.init_std},      {"steps", r.steps}});
  return out;
}

}  // namespace

json catalog() {
  json metrics = json::array();
  for (const HeadMetricSpec& m : head_metric_table())
    metrics.push_back({{"id", m.id}, {"column", m.column}, {"abbreviation", m.abbreviation}});
  json rules = json::array();
  for (const LabelRule& r : head_label_rules()) rules.push_back({{"label", r.id}, {"metric", r.metric}, {"atLeast", r.threshold}});
  json errors = json::array();
  for (const ErrorCodeSpec& e : error_code_table()) errors.push_back({{"code", e.id}, {"english", e.english}});
  json presets = json::array();
  for (Preset p : {Preset::single, Preset::attn_only, Preset::gpt2}) presets.push_back(preset_name(p));
  return {
      {"limits",
       {{"dModel", kMaxDModel},
        {"heads", kMaxHeads},
        {"tokens", kMaxSeq},
        {"textBytes", kMaxTextBytes},
        {"textTokens", kMaxTextTokens},
        {"layers", kMaxLayers},
        {"vocabSize", kMaxVocab}}},
      {"defaults", config_json(Config{})},
      {"ropeBase", kDefaultRopeBase},
      {"presets", presets},
      {"recipes", {{"induction", recipe_json(induction_recipe())}, {"inductionSmall", recipe_json(induction_recipe_small())}}},
      {"phaseChangeScore", kPhaseChangeScore},
      {"headMetrics", metrics},
      {"labelRules", rules},
      {"errorCodes", errors},
  };
}

}  // namespace mha
