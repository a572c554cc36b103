#include "catalog.h"

#include "analysis/head_metrics.h"
#include "analysis/importance.h"
#include "base/config.h"
#include "base/error_codes.h"
#include "io/layouts.h"
#include "model/generate.h"
#include "model/kv_cache.h"
#include "model/stages.h"
#include "options.h"
#include "train/recipe.h"

namespace mha {

namespace {

using nlohmann::json;

// An option's value as JSON: a whole number, a number (a float's value as it is), a flag, a choice's name.
template <class Target>
json option_value(const OptionSpec<Target>& row, const Target& from) {
  const double v = row.field.get(from);
  switch (row.kind) {
    case OptionKind::whole: return static_cast<long long>(v);
    case OptionKind::flag: return v != 0;
    case OptionKind::choice: return row.choice(static_cast<size_t>(v));
    default: return v;
  }
}

// options.h's rows as the catalog lists them: [{key, type, min?, max?, choices?, task?, default?, help}],
// each default read from defaults_of(row).
template <class Target, class DefaultsOf>
json option_rows(const std::vector<OptionSpec<Target>>& rows, DefaultsOf defaults_of) {
  json out = json::array();
  for (const OptionSpec<Target>& row : rows) {
    json o = {{"key", row.key}, {"type", option_kind_name(row.kind)}, {"help", row.help}};
    if (row.kind == OptionKind::whole) o.update({{"min", static_cast<long long>(row.min)}, {"max", static_cast<long long>(row.max)}});
    if (row.kind == OptionKind::number) o.update({{"min", row.min}, {"max", row.max}});
    if (row.kind == OptionKind::positive) o["max"] = row.max;
    if (row.kind == OptionKind::choice) o["choices"] = option_choices(row);
    if (row.task) o["task"] = row.task;
    if (row.field.get) o["default"] = option_value(row, defaults_of(row));
    out.push_back(o);
  }
  return out;
}
template <class Target>
json option_rows(const std::vector<OptionSpec<Target>>& rows, const Target& defaults) {
  return option_rows(rows, [&](const OptionSpec<Target>&) { return defaults; });
}

json options_json() {
  // A Trainer's: its own, then the model's its task does not set; the defaults are the induction
  // recipe's (the default task), an option of one task's its recipe's.
  const Recipe induction = recipe_of(TaskKind::induction);
  json trainer = option_rows(recipe_options(), [&](const OptionSpec<Recipe>& row) {
    return row.task ? recipe_of(parse_task(row.task)) : induction;
  });
  for (const json& row : option_rows(trainer_model_options(), induction.config)) trainer.push_back(row);
  json generate = option_rows(generate_options(), GenerateOptions{});  // and a run's
  for (const json& row : option_rows(run_options(), RunOptions{})) generate.push_back(row);
  return {{"model", option_rows(model_options(), Config{})},
          {"trainer", trainer},
          {"run", option_rows(run_options(), RunOptions{})},
          {"generate", generate},
          {"attribute", option_rows(attribute_options(), AttributeOptions{})},
          {"taskSamples", option_rows(task_sample_options(), TaskSampleOptions{})},
          {"patch", option_rows(patch_options(), PatchOptions{})}};
}

// Every option a table declares, with its value in `from` (a Model's settings, a generation's defaults).
template <class Target>
json option_values(const std::vector<OptionSpec<Target>>& rows, const Target& from) {
  json out = json::object();
  for (const OptionSpec<Target>& row : rows)
    if (row.field.get) out[row.key] = option_value(row, from);
  return out;
}

// A recipe as the module's Trainer takes it (its task's options), and what follows from its task: the
// model's causal, maxPositions and readouts, and the loss it can reach.
json recipe_json(const Recipe& r) {
  json out = option_values(model_options(), r.config);
  for (const OptionSpec<Recipe>& row : recipe_options())
    if (!row.task || row.task == std::string(task_name(r.task))) out[row.key] = option_value(row, r);
  out["lossFloor"] = loss_floor(r);
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
  return {{"defaults", option_values(generate_options(), GenerateOptions{})}, {"maxTemperature", kMaxTemperature}};
}

json kv_cache_json() {
  json published = json::array();
  for (const PublishedAttention& m : published_attention_table())
    published.push_back({{"id", m.id}, {"name", m.name}, {"layers", m.layers}, {"heads", m.heads}, {"kvHeads", m.kv_heads},
                         {"dHead", m.d_head}, {"repo", m.repo}});
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
  // The weight layouts a file may be read in (layouts.h kLayouts): the page's layout= choices and
  // whether a file is one attention layer or a whole model come from here.
  json layouts = json::array();
  for (const LayoutSpec& l : kLayouts)
    layouts.push_back({{"name", l.name},
                       {"wholeModel", l.whole_model ? json(preset_spec(*l.whole_model).name) : json(nullptr)},
                       {"rope", l.rope}});
  json recipes = json::object();
  for (const PageRecipe& r : kPageRecipes) recipes[r.name] = recipe_json(r.make());
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
      {"defaults", option_values(model_options(), Config{})},
      {"ropeBase", kDefaultRopeBase},
      {"gpt2DHead", kGpt2DHead},
      {"presets", presets},
      {"layouts", layouts},
      {"recipes", recipes},
      {"sweepHeads", sweep_heads()},
      {"phaseChangeScore", kPhaseChangeScore},
      {"phaseChangeEvery", kPhaseChangeEvery},
      {"headMetrics", metrics},
      {"importance", {{"samples", kImportanceSamples}, {"seed", kImportanceSeed}, {"maxSamples", kMaxImportanceSamples}}},
      {"labelRules", rules},
      {"errorCodes", errors},
      {"stageTable", stage_table_json()},
      {"generate", generate_json()},
      {"kvCache", kv_cache_json()},
      {"options", options_json()},
  };
}

}  // namespace mha
