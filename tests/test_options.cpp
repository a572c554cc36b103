// The options the JavaScript API takes (cpp/core/options.h): every row's field is the one its key
// says, its default and the shipped recipes' values are within its limits (so a recipe the catalog
// lists is a Trainer's options as they are), and an unknown key names the key it is a slip of.
// tests/node/options.test.js checks the same rows through the module and against mha.d.ts.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "options.h"

namespace {

// A value `row` accepts as its limits say (the marshalling's checks, cpp/bindings/marshal.cpp).
template <class Target>
bool within(const mha::OptionSpec<Target>& row, double v) {
  switch (row.kind) {
    case mha::OptionKind::whole: return v == static_cast<double>(static_cast<long long>(v)) && v >= row.min && v <= row.max;
    case mha::OptionKind::number: return v >= row.min && v <= row.max;
    case mha::OptionKind::positive: return v > 0 && v <= row.max;
    case mha::OptionKind::fraction: return v >= 0 && v < 1;
    case mha::OptionKind::flag: return v == 0 || v == 1;
    case mha::OptionKind::choice: return v >= 0 && v < static_cast<double>(mha::option_choices(row).size());
    case mha::OptionKind::heads:
    case mha::OptionKind::input: return true;  // no field: their callers read them
  }
  return false;
}

template <class Target>
void check_values(const std::vector<mha::OptionSpec<Target>>& rows, const Target& values, const char* what) {
  for (const mha::OptionSpec<Target>& row : rows) {
    if (!row.field.get) continue;
    INFO(what << " " << row.key << " = " << row.field.get(values));
    CHECK(within(row, row.field.get(values)));
  }
}

}  // namespace

TEST_CASE("every default and every shipped recipe is within its options' limits") {
  check_values(mha::model_options(), mha::Config{}, "Config{}");
  check_values(mha::generate_options(), mha::GenerateOptions{}, "GenerateOptions{}");
  check_values(mha::attribute_options(), mha::AttributeOptions{}, "AttributeOptions{}");
  for (const mha::Recipe& r : {mha::induction_recipe(), mha::induction_recipe_small(), mha::recall_recipe()}) {
    check_values(mha::recipe_options(), r, mha::task_name(r.task));
    check_values(mha::trainer_model_options(), r.config, mha::task_name(r.task));
  }
  // samples' default is "none given" (0), below its limits: headImportance then reads its input.
  CHECK(mha::TaskSampleOptions{}.samples == 0);
}

TEST_CASE("each row's field is the one its key names") {
  SUBCASE("a set value reads back, and only that field changes") {
    mha::Config c;
    for (const mha::OptionSpec<mha::Config>& row : mha::model_options()) {
      INFO(row.key);
      mha::Config changed = c;
      const double v = row.kind == mha::OptionKind::flag ? 1 - row.field.get(c) : row.kind == mha::OptionKind::choice ? 2 : 3;
      row.field.set(changed, v);
      CHECK(row.field.get(changed) == v);
    }
    mha::Recipe r = mha::induction_recipe();
    for (const mha::OptionSpec<mha::Recipe>& row : mha::recipe_options()) {
      if (row.kind == mha::OptionKind::choice) continue;  // task: below
      INFO(row.key);
      mha::Recipe changed = r;
      const double v = row.kind == mha::OptionKind::whole ? row.field.get(r) + 1 : 0.25;
      row.field.set(changed, v);
      CHECK(row.field.get(changed) == doctest::Approx(v));
      CHECK(row.field.get(r) != row.field.get(changed));
    }
  }
  SUBCASE("Adam's settings are the recipe's own") {
    mha::Recipe r = mha::induction_recipe();
    for (const mha::OptionSpec<mha::Recipe>& row : mha::recipe_options()) {
      const std::string key = row.key;
      if (key == "beta1") row.field.set(r, 0.5);
      if (key == "beta2") row.field.set(r, 0.75);
      if (key == "eps") row.field.set(r, 0.125);
      if (key == "weightDecay") row.field.set(r, 0.0625);
    }
    CHECK(r.adam.beta1 == 0.5f);
    CHECK(r.adam.beta2 == 0.75f);
    CHECK(r.adam.eps == 0.125f);
    CHECK(r.adam.weight_decay == 0.0625f);
  }
  SUBCASE("choices are numbered in their enum's order: task picks the recipe, model the preset") {
    const mha::OptionSpec<mha::Recipe>& task = mha::recipe_options().front();
    REQUIRE(std::string(task.key) == "task");
    const std::vector<std::string> tasks = mha::option_choices(task);
    CHECK(tasks == std::vector<std::string>{"induction", "recall", "corpus"});
    for (size_t i = 0; i < tasks.size(); ++i) {
      CHECK(tasks[i] == mha::task_name(static_cast<mha::TaskKind>(i)));
      mha::Recipe r = mha::induction_recipe();
      r.batch = 999;
      task.field.set(r, static_cast<double>(i));
      CHECK(r.batch == mha::recipe_of(static_cast<mha::TaskKind>(i)).batch);  // the whole recipe, not the field
    }
    const mha::OptionSpec<mha::Config>& model = mha::model_options().front();
    REQUIRE(std::string(model.key) == "model");
    const std::vector<std::string> presets = mha::option_choices(model);
    CHECK(presets.size() == std::size(mha::kPresets));
    for (size_t i = 0; i < presets.size(); ++i) CHECK(presets[i] == mha::preset_name(static_cast<mha::Preset>(i)));
    // corpus: the corpus task's text, by corpus_names()'s order
    for (const mha::OptionSpec<mha::Recipe>& row : mha::recipe_options()) {
      if (std::string(row.key) != "corpus") continue;
      CHECK(mha::option_choices(row) == mha::corpus_names());
      mha::Recipe r = mha::corpus_recipe("tang");
      CHECK(row.field.get(r) == 0);
      row.field.set(r, 1);
      CHECK(r.corpus.corpus == "brown");
      CHECK(row.field.get(r) == 1);
    }
  }
  SUBCASE("kvHeads reads back the count in use, as a model's config says it") {
    mha::Config c;
    c.heads = 4;
    for (const mha::OptionSpec<mha::Config>& row : mha::model_options())
      if (std::string(row.key) == "kvHeads") CHECK(row.field.get(c) == 4);
  }
}

TEST_CASE("a Trainer takes the model's options its task does not set") {
  std::vector<std::string> keys;
  for (const auto& row : mha::trainer_model_options()) keys.push_back(row.key);
  CHECK(keys == std::vector<std::string>{"model", "layers", "dModel", "heads", "kvHeads", "seed", "vocabSize"});
}

TEST_CASE("an unknown key names the key it is a slip of, or every key") {
  const std::vector<std::string> known = {"lr", "minLength", "dModel", "kvHeads", "switchedOff", "eps", "samples", "seed"};
  SUBCASE("slips") {
    CHECK(mha::nearest_option("minLenght", known) == "minLength");  // swapped
    CHECK(mha::nearest_option("d_model", known) == "dModel");       // case and _ aside
    CHECK(mha::nearest_option("kvheads", known) == "kvHeads");
    CHECK(mha::nearest_option("switchOff", known) == "switchedOff");
    CHECK(mha::nearest_option("sample", known) == "samples");
    CHECK(mha::nearest_option("seeds", known) == "seed");
  }
  SUBCASE("not slips") {
    CHECK(mha::nearest_option("lerningRate", known) == "");
    CHECK(mha::nearest_option("steps", known) == "");  // two of five letters from eps
    CHECK(mha::nearest_option("x", known) == "");
  }
  SUBCASE("the errors") {
    const mha::Error near = mha::unknown_option("minLenght", "Trainer", known);
    CHECK(near.code() == "unknown_option_near");
    CHECK(std::string(near.what()) == "minLenght is not an option of Trainer; did you mean minLength?");
    const mha::Error far = mha::unknown_option("lerningRate", "Trainer", known);
    CHECK(far.code() == "unknown_option");
    CHECK(far.params().at("name") == "lerningRate");
    CHECK(far.params().at("known") == "lr, minLength, dModel, kvHeads, switchedOff, eps, samples, seed");
  }
}
