#include "options.h"

#include <algorithm>
#include <cctype>
#include <climits>

namespace mha {

const char* option_kind_name(OptionKind kind) {
  switch (kind) {
    case OptionKind::whole: return "whole";
    case OptionKind::number: return "number";
    case OptionKind::positive: return "positive";
    case OptionKind::fraction: return "fraction";
    case OptionKind::flag: return "boolean";
    case OptionKind::choice: return "choice";
    case OptionKind::heads: return "heads";
  }
  return "";
}

namespace {
using K = OptionKind;

std::vector<std::string> preset_names() {
  std::vector<std::string> names;
  for (const PresetSpec& p : kPresets) names.push_back(p.name);  // in the enum's order (config.cpp checks)
  return names;
}
}  // namespace

const std::vector<OptionSpec<Config>>& model_options() {
  static const std::vector<OptionSpec<Config>> rows = {
      // First: a model with blocks predicts the next token, so it is causal unless `causal` below says otherwise.
      {"model", K::choice, 0, 0,
       {[](const Config& c) { return static_cast<double>(c.preset); },
        [](Config& c, double v) {
          c.preset = static_cast<Preset>(v);
          if (has_blocks(c.preset)) c.causal = true;
        }},
       "single: one attention layer; attn-only: blocks of attention; gpt2: GPT-2 blocks (LayerNorm, MLP)", preset_names()},
      {"layers", K::whole, 1, kMaxLayers, field<&Config::layers>(), "blocks (a single layer is 1)"},
      {"dModel", K::whole, 1, kMaxDModel, field<&Config::d_model>(), "the width of each token's vector, divisible by heads"},
      {"heads", K::whole, 1, kMaxHeads, field<&Config::heads>(), "attention heads, each of d_head = dModel / heads"},
      // Read back as the count in use, so a model's config and the catalog's defaults say the same.
      {"kvHeads", K::whole, 0, kMaxHeads,
       {[](const Config& c) { return static_cast<double>(c.kv_heads_or_heads()); },
        [](Config& c, double v) { c.kv_heads = static_cast<int>(v); }},
       "key/value heads, dividing heads (1: multi-query; fewer: grouped-query); unless given, and given 0, as many as heads"},
      {"causal", K::flag, 0, 0, field<&Config::causal>(), "each position sees only itself and earlier ones (models with blocks always)",
       {}, nullptr, true},
      {"seed", K::whole, 0, kMaxSafeInteger, field<&Config::seed>(), "the seed of the random weights and embeddings"},
      {"vocabSize", K::whole, 1, kMaxVocab, field<&Config::vocab_size>(), "ids are 0 … vocabSize − 1"},
      {"maxPositions", K::whole, 1, kMaxSeq, field<&Config::max_positions>(), "rows of the learned position table (models with blocks)",
       {}, nullptr, true},
      {"readouts", K::whole, 1, kMaxReadouts, field<&Config::readouts>(),
       "tokens predicted at each position: 1, or the recall task's K (attn-only)", {}, nullptr, true},
  };
  return rows;
}

const std::vector<OptionSpec<Recipe>>& recipe_options() {
  static const std::vector<OptionSpec<Recipe>> rows = {
      // First, and all of the recipe: the options after it (and the model's) change the task's recipe.
      {"task", K::choice, 0, 0,
       {[](const Recipe& r) { return static_cast<double>(r.task); },
        [](Recipe& r, double v) { r = recipe_of(static_cast<TaskKind>(v)); }},
       "induction: [0, s1 … sL, s1 … sL]; recall: the K ids before each position. Unset options take its recipe",
       {task_name(TaskKind::induction), task_name(TaskKind::recall)}},  // in the enum's order
      {"batch", K::whole, 1, kMaxBatch, field<&Recipe::batch>(), "sequences in each step"},
      {"lr", K::positive, 0, 1, field<&Recipe::adam, &AdamSettings::lr>(), "Adam's learning rate"},
      {"beta1", K::fraction, 0, 0, field<&Recipe::adam, &AdamSettings::beta1>(), "Adam's β1: how slowly its mean of the gradients forgets"},
      {"beta2", K::fraction, 0, 0, field<&Recipe::adam, &AdamSettings::beta2>(), "Adam's β2: the same for its mean of their squares"},
      {"eps", K::positive, 0, 1, field<&Recipe::adam, &AdamSettings::eps>(), "Adam's ε, added to the root of that mean"},
      {"weightDecay", K::number, 0, 1, field<&Recipe::adam, &AdamSettings::weight_decay>(),
       "AdamW's decoupled weight decay: each step first takes lr × weightDecay of every weight away"},
      {"initStd", K::positive, 0, 1, field<&Recipe::init_std>(), "the standard deviation of the initial weights"},
      {"minLength", K::whole, 2, kMaxInductionLength, field<&Recipe::induction, &InductionTask::min_length>(),
       "the shortest repeat L", {}, "induction"},
      {"maxLength", K::whole, 2, kMaxInductionLength, field<&Recipe::induction, &InductionTask::max_length>(),
       "the longest repeat L", {}, "induction"},
      {"recall", K::whole, 1, kMaxReadouts, field<&Recipe::recall, &RecallTask::readouts>(),
       "K: readout k predicts the id k places back", {}, "recall"},
      {"length", K::whole, 2, kMaxSeq, field<&Recipe::recall, &RecallTask::length>(), "ids in each sequence", {}, "recall"},
  };
  return rows;
}

const std::vector<OptionSpec<Config>>& trainer_model_options() {
  static const std::vector<OptionSpec<Config>> rows = [] {
    std::vector<OptionSpec<Config>> taken;
    for (const OptionSpec<Config>& row : model_options())
      if (!row.set_by_task) taken.push_back(row);
    return taken;
  }();
  return rows;
}

const std::vector<OptionSpec<GenerateOptions>>& generate_options() {
  static const std::vector<OptionSpec<GenerateOptions>> rows = {
      {"tokens", K::whole, 1, kMaxSeq, field<&GenerateOptions::tokens>(), "new tokens; the prompt and they must fit the model's positions"},
      {"temperature", K::number, 0, kMaxTemperature, field<&GenerateOptions::sampling, &SamplingOptions::temperature>(),
       "0: greedy (the likeliest id); else a draw from softmax(logits / temperature)"},
      {"topK", K::whole, 0, kMaxVocab, field<&GenerateOptions::sampling, &SamplingOptions::top_k>(),
       "0: no cut; else a draw among the k likeliest ids only"},
      {"topP", K::number, 0, 1, field<&GenerateOptions::sampling, &SamplingOptions::top_p>(),
       "1: no cut; else a draw among the fewest likeliest ids whose probabilities reach topP"},
      {"seed", K::whole, 0, kMaxSafeInteger, field<&GenerateOptions::sampling, &SamplingOptions::seed>(),
       "the draws' seed: the same seed, the same continuation"},
      {"top", K::whole, 1, kMaxVocab, field<&GenerateOptions::top>(), "candidates each step lists"},
      {"cache", K::flag, 0, 0, field<&GenerateOptions::use_cache>(),
       "false: run the whole sequence at every step instead of reading the KV cache (the same ids)"},
  };
  return rows;
}

const std::vector<OptionSpec<RunOptions>>& run_options() {
  static const std::vector<OptionSpec<RunOptions>> rows = {
      {"switchedOff", K::heads, 0, 0, {}, "heads whose output is zeroed before the concat: [[layer, head], …]"},
  };
  return rows;
}

const std::vector<OptionSpec<AttributeOptions>>& attribute_options() {
  static const std::vector<OptionSpec<AttributeOptions>> rows = {
      {"position", K::whole, -1, INT_MAX, field<&AttributeOptions::position>(), "the position whose logit is split; -1: the last"},
      {"token", K::whole, -1, INT_MAX, field<&AttributeOptions::token>(), "the token whose logit is split; -1: the position's first choice"},
  };
  return rows;
}

const std::vector<OptionSpec<TaskSampleOptions>>& task_sample_options() {
  static const std::vector<OptionSpec<TaskSampleOptions>> rows = {
      {"samples", K::whole, 1, kMaxImportanceSamples, field<&TaskSampleOptions::samples>(),
       "fresh sequences of the model's task; none: headImportance reads its input, prune takes catalog.importance.samples"},
      {"seed", K::whole, 0, kMaxSafeInteger, field<&TaskSampleOptions::seed>(), "the seed they are drawn from"},
  };
  return rows;
}

namespace {
// A key as it is compared for a suggestion: lower case, without _ and -.
std::string folded(const std::string& key) {
  std::string out;
  for (char c : key)
    if (c != '_' && c != '-') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Letters inserted, deleted, replaced or two neighbours swapped to turn a into b (optimal string alignment).
size_t slips(const std::string& a, const std::string& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1])});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}
}  // namespace

std::string nearest_option(const std::string& key, const std::vector<std::string>& known) {
  const std::string given = folded(key);
  std::string best;
  size_t fewest = 3;  // two slips at most, and one in three letters at most: "steps" is no slip of "eps"
  for (const std::string& k : known) {
    const size_t n = slips(given, folded(k));
    if (n < fewest && 3 * n <= std::max(given.size(), folded(k).size())) best = k, fewest = n;
  }
  return best;
}

Error unknown_option(const std::string& key, const std::string& what, const std::vector<std::string>& known) {
  const std::string near = nearest_option(key, known);
  if (!near.empty()) return Error(ErrorCode::unknown_option_near, "", {{"name", printable(key, 40)}, {"what", what}, {"near", near}});
  std::string list;
  for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
  return Error(ErrorCode::unknown_option, "", {{"name", printable(key, 40)}, {"what", what}, {"known", list}});
}

}  // namespace mha
