// The options the JavaScript API takes, declared once: a Model's (new Model, configure,
// useRandomWeights), a Trainer's, a run's (runText, runIds), a generation's, Trace.attribute's,
// headImportance's and prune's, and Model.patch's.
// Each row is an option's name as JavaScript spells it, its kind and limits, the field of the core's
// struct it sets and a line on what it means. cpp/bindings/marshal.cpp reads option objects through
// these rows alone (a key no row declares is an error naming it), the catalog lists them
// (mha.catalog.options, with each default), and tests/node/options.test.js checks them against the
// option interfaces of web/package/mha.d.ts. A new option is a new row here, and a key in mha.d.ts.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "analysis/importance.h"
#include "base/config.h"
#include "base/error.h"
#include "model/generate.h"
#include "train/recipe.h"

namespace mha {

// JavaScript's Number.MAX_SAFE_INTEGER: the largest seed a JavaScript number holds exactly.
constexpr double kMaxSafeInteger = 9007199254740991.0;

enum class OptionKind {
  whole,     // a whole number in [min, max]
  number,    // a number in [min, max]
  positive,  // a number above 0, at most max
  fraction,  // a number from 0 up to, not including, 1 (Adam's betas)
  flag,      // true or false
  choice,    // one of the row's choices (option_choices)
  heads,     // [[layer, head], …] heads switched off: no field; its caller reads it (marshal.h head_switches_from_js)
  input,     // a text or token ids: no field; its caller reads it (marshal.h patch_request_from_js)
};
const char* option_kind_name(OptionKind kind);  // "whole", "number", …, as the catalog says it

// An option's field read and written as a number: whole numbers and floats as they are, a flag 0 or
// 1, a choice its index among the row's choices.
template <class Target>
struct OptionField {
  double (*get)(const Target&) = nullptr;
  void (*set)(Target&, double) = nullptr;
};

template <class Target>
struct OptionSpec {
  const char* key;            // as JavaScript spells it: errors about it name it so
  OptionKind kind;
  double min, max;            // whole and number: [min, max]; positive: (0, max]; otherwise unused
  OptionField<Target> field;  // none for heads
  const char* help;           // what it means, in a line (the catalog's; "" in WebAssembly: options.cpp HELP)
  const char* (*choice)(size_t i) = nullptr;  // choice: its i-th name (the field's number i), null past the last
  const char* task = nullptr;  // a Trainer's option that only this task's recipe reads; null: every task's
  bool set_by_task = false;    // a Model's option the Trainer's task sets (so a Trainer does not take it)
};

// The field at a path of members, as an OptionField: field<&Config::d_model>(),
// field<&Recipe::adam, &AdamSettings::beta1>(). For number and bool members.
namespace option_detail {
template <class Member>
struct owner_of;
template <class Owner, class Field>
struct owner_of<Field Owner::*> {
  using type = Owner;
};
template <auto First, auto... Rest, class T>
constexpr auto& at(T& t) {
  if constexpr (sizeof...(Rest) == 0) return t.*First;
  else return at<Rest...>(t.*First);
}
}  // namespace option_detail

template <auto First, auto... Rest>
constexpr OptionField<typename option_detail::owner_of<decltype(First)>::type> field() {
  using Target = typename option_detail::owner_of<decltype(First)>::type;
  return {[](const Target& t) { return static_cast<double>(option_detail::at<First, Rest...>(t)); },
          [](Target& t, double v) {
            auto& f = option_detail::at<First, Rest...>(t);
            f = static_cast<std::remove_reference_t<decltype(f)>>(v);
          }};
}

// What Trace.attribute takes: the position (-1: the last) and the token (-1: its first choice there).
struct AttributeOptions {
  int position = -1;
  int token = -1;
};

// What runText and runIds take besides their input: only switchedOff, which has no field (the heads a
// model has decide what it may say: marshal.h's head_switches_from_js reads it). A generation takes it too.
struct RunOptions {};

// What headImportance and prune take: how many fresh sequences of the model's task (0: none given, so
// headImportance reads its input and prune takes kImportanceSamples) and their seed.
struct TaskSampleOptions {
  int samples = 0;
  uint64_t seed = kImportanceSeed;
};

// What Model.patch takes (analysis/patching.h): the clean and the corrupted input, each a text or ids
// (input rows, read by their caller), and the metric's two tokens (-1: the clean run's first choice,
// and the corrupted run's).
struct PatchOptions {
  int answer = -1;
  int wrong = -1;
};

// A choice row's names, in the order its field numbers them.
template <class Target>
std::vector<std::string> option_choices(const OptionSpec<Target>& row) {
  std::vector<std::string> names;
  for (size_t i = 0; row.choice && row.choice(i); ++i) names.push_back(row.choice(i));
  return names;
}

// The tables, each in the order its options are applied (constant arrays in options.cpp).
const std::vector<OptionSpec<Config>>& model_options();
// A Trainer's options: its own, task first (it picks the recipe the rest go over), and the rows of
// model_options() its task does not set, which go into the recipe's config.
const std::vector<OptionSpec<Recipe>>& recipe_options();
const std::vector<OptionSpec<Config>>& trainer_model_options();
const std::vector<OptionSpec<RunOptions>>& run_options();
// A generation's options: these, and run_options().
const std::vector<OptionSpec<GenerateOptions>>& generate_options();
const std::vector<OptionSpec<AttributeOptions>>& attribute_options();
const std::vector<OptionSpec<TaskSampleOptions>>& task_sample_options();
const std::vector<OptionSpec<PatchOptions>>& patch_options();

// The one test of a number given to an option of kind whole, number, positive or fraction with limits
// [min, max] (options.h OptionKind): throws the Error saying why `value` is refused, {name} being
// `name` as its reader spells the option (dModel in JavaScript, --d-model on the command line) and
// `field` the setting it is about. The module's bindings (marshal.cpp) and the CLI ask it alike.
void check_option_number(OptionKind kind, double min, double max, double value, const std::string& name,
                         const std::string& field);
// A number as an error's sentence or a help line shows it: 64, 0.001, 1e+06.
std::string number_text(double x);

// The error for an option `key` that `known` does not list, `what` taking them ("Trainer", …):
// unknown_option_near naming the nearest known key when it is a slip away (a letter or two wrong,
// missing, extra or swapped, case and _ aside), else unknown_option listing them all.
Error unknown_option(const std::string& key, const std::string& what, const std::vector<std::string>& known);
// The known key `key` is a slip away from, or "" for none (unknown_option's suggestion).
std::string nearest_option(const std::string& key, const std::vector<std::string>& known);

}  // namespace mha
