#include "catalog.h"

#include "analysis/head_metrics.h"
#include "analysis/importance.h"
#include "base/config.h"
#include "base/error_codes.h"
#include "model/generate.h"
#include "model/kv_cache.h"
#include "model/stages.h"
#include "train/recipe.h"

namespace mha {

namespace {

using nlohmann::json;

// A Config as the JavaScript API spells its options (web/mha.js: new Model({dModel, heads, …})).
json config_json(const Config& c) {
  return {{"model", preset_name(c.preset)}, {"layers", c.layers},     {"dModel", c.d_model},
          {"heads", c.heads},               {"kvHeads", c.kv_heads},   {"causal", c.causal},
          {"seed", c.seed},                 {"vocabSize", c.vocab_size}, {"maxPositions", c.max_positions},
          {"readouts", c.readouts}};
}

// A recipe as the module's Trainer takes it (options and all): the task's own keys beside the rest.
json recipe_json(const Recipe& r) {
  json out = config_json(r.config);
  out.update({{"task", task_name(r.task)},  {"batch", r.batch},          {"lr", r.adam.lr},
              {"beta1", r.adam.beta1},      {"beta2", r.adam.beta2},     {"eps", r.adam.eps},
              {"weightDecay", r.adam.weight_decay}, {"initStd", r.init_std}, {"steps", r.steps},
              {"lossFloor", loss_floor(r)}});
  if (r.task == TaskKind::induction) out.update({{"minLength", r.induction.min_length}, {"maxLength", r.induction.max_length}});
  else if (r.task == TaskKind::corpus)
    out.update({{"corpus", r.corpus.corpus}, {"window", r.corpus.length}, {"warmup", r.warmup}, {"finalLr", r.final_lr}});
  else out.update({{"recall", r.recall.readouts}, {"length", r.recall.length}});
  return out;
}

// stages.h's table: {stages: [{id, family, perLayer}], tensors: [{name, stage, shape, formula,
// forBackward?}], stagesOf: {single: [ids…], 'attn-only': […], gpt2: […]}}, the last with seeded weights.
json stage_table_json() {
  json stages = json::array(), tensors = json::array(), of = json::object();
  for (const StageSpec& s : stage_table()) stages.push_back({{"id", s.id}, {"family", s.family}, {"perLayer", s.per_layer}});
  for (const TensorSpec& t : tensor_table()) {
    json row = {{"name", t.name}, {"stage", stage_name(t.stage)}, {"shape", t.shape}, {"formula", t.formula}};
    if (t.for_backward) row["forBackward"] = true;  // kept for the backward pass; the page does not draw it
    tensors.push_back(row);
  }
  for (const PresetSpec& p : kPresets) {
    Config c;
    c.preset = p.preset;
    json ids = json::array();
    for (Stage s : stages_of(c)) ids.push_back(stage_name(s));
    of[p.name] = ids;
  }
  return {{"stages", stages}, {"tensors", tensors}, {"stagesOf", of}};
}

// Generation's defaults (generate.h) as the module's generate() takes them, and the published models'
// attention sizes for the KV cache calculator.
json generate_json() {
  const GenerateOptions g;
  return {{"defaults",
           {{"tokens", g.tokens}, {"temperature", g.sampling.temperature}, {"topK", g.sampling.top_k},
            {"topP", g.sampling.top_p}, {"seed", g.sampling.seed}, {"top", g.top}}},
          {"maxTemperature", kMaxTemperature}};
}

json kv_cache_json() {
  json published = json::array();
  for (const PublishedAttention& m : published_attention_table())
    published.push_back({{"id", m.id}, {"name", m.name}, {"layers", m.layers}, {"heads", m.heads}, {"kvHeads", m.kv_heads},
                         {"dHead", m.d_head}, {"source", m.source}});
  return {{"published", published}};
}

}  // namespace

json catalog() {
  json metrics = json::array();
  for (const HeadMetricSpec& m : head_metric_table())
    metrics.push_back({{"id", m.id}, {"fraction", m.fraction}, {"abbreviation", m.abbreviation}, {"gradient", m.gradient},
                       {"chance", m.chance != nullptr}, {"vocabulary", m.vocabulary}});
  json rules = json::array();
  for (const LabelRule& r : head_label_rules())
    rules.push_back({{"label", r.id}, {"metric", r.metric}, {"atLeast", r.threshold}, {"timesChance", r.times_chance}});
  json errors = json::array();
  for (const ErrorCodeSpec& e : error_code_table()) errors.push_back({{"code", e.id}, {"english", e.english}});
  json presets = json::array();
  for (const PresetSpec& p : kPresets) presets.push_back(p.name);
  return {
      {"limits",
       {{"dModel", kMaxDModel},
        {"heads", kMaxHeads},
        {"tokens", kMaxSeq},
        {"textBytes", kMaxTextBytes},
        {"textTokens", kMaxTextTokens},
        {"layers", kMaxLayers},
        {"vocabSize", kMaxVocab},
        {"batch", kMaxBatch},
        {"repeatLength", kMaxInductionLength},
        {"trainingMegabytes", kMaxTrainingMegabytes},
        {"readouts", kMaxReadouts}}},
      {"defaults", config_json(Config{})},
      {"ropeBase", kDefaultRopeBase},
      {"gpt2DHead", kGpt2DHead},
      {"presets", presets},
      {"recipes",
       {{"induction", recipe_json(induction_recipe())},
        {"inductionSmall", recipe_json(induction_recipe_small())},
        {"recall", recipe_json(recall_recipe())}}},
      {"sweepHeads", sweep_heads()},
      {"phaseChangeScore", kPhaseChangeScore},
      {"headMetrics", metrics},
      {"importance", {{"samples", kImportanceSamples}, {"seed", kImportanceSeed}, {"maxSamples", kMaxImportanceSamples}}},
      {"labelRules", rules},
      {"errorCodes", errors},
      {"stageTable", stage_table_json()},
      {"generate", generate_json()},
      {"kvCache", kv_cache_json()},
  };
}

}  // namespace mha
