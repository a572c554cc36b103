#include "options.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <cstdio>
#include <iterator>

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
    case OptionKind::input: return "input";
  }
  return "";
}

std::string number_text(double x) {
  if (std::isfinite(x) && x == std::floor(x) && std::fabs(x) < 1e18) return std::to_string(static_cast<long long>(x));
  char text[32];
  std::snprintf(text, sizeof text, "%g", x);
  return text;
}

void check_option_number(OptionKind kind, double min, double max, double value, const std::string& name,
                         const std::string& field) {
  using K = OptionKind;
  ErrorParams said = {{"name", name}};
  if (!std::isfinite(value)) throw Error(ErrorCode::not_a_number, field, said);
  if (kind == K::whole && value != std::floor(value)) throw Error(ErrorCode::not_whole, field, said);
  if (kind == K::positive ? value > 0 && value <= max : kind == K::fraction ? value >= 0 && value < 1 : value >= min && value <= max)
    return;
  if (kind == K::whole || kind == K::number) said["min"] = number_text(min);
  if (kind != K::fraction) said["max"] = number_text(max);
  said["value"] = number_text(value);
  throw Error(kind == K::positive ? ErrorCode::not_positive : kind == K::fraction ? ErrorCode::not_fraction : ErrorCode::out_of_range,
              field, said);
}

namespace {
using K = OptionKind;

// A row's help is the catalog's (`mha catalog`). The module hands out that catalog's text
// (marshal.cpp catalog_text), so in WebAssembly the lines would be bytes nothing reads: left out.
#ifdef __EMSCRIPTEN__
#define HELP(text) ""
#else
#define HELP(text) text
#endif

// The model kinds by kPresets' names, in the enum's order (config.cpp checks it).
const char* preset_choice(size_t i) { return i < std::size(kPresets) ? kPresets[i].name : nullptr; }
// The tasks, in the enum's order (the corpus task's text is handed to the module's Trainer beside its options).
const char* task_choice(size_t i) { return i <= static_cast<size_t>(TaskKind::corpus) ? task_name(static_cast<TaskKind>(i)) : nullptr; }
// The corpora, in corpus_names()'s order.
const char* corpus_choice(size_t i) { return i < corpus_names().size() ? corpus_names()[i].c_str() : nullptr; }

// A table's constant rows as the vector its readers take.
template <class Target, size_t N>
std::vector<OptionSpec<Target>> table(const OptionSpec<Target> (&rows)[N]) {
  return std::vector<OptionSpec<Target>>(rows, rows + N);
}
}  // namespace

const std::vector<OptionSpec<Config>>& model_options() {
  static constexpr OptionSpec<Config> kRows[] = {
      // First: a model with blocks predicts the next token, so it is causal unless `causal` below says otherwise.
      {"model", K::choice, 0, 0,
       {[](const Config& c) { return static_cast<double>(c.preset); },
        [](Config& c, double v) {
          c.preset = static_cast<Preset>(v);
          if (has_blocks(c.preset)) c.causal = true;
        }},
       HELP("single: one attention layer; attn-only: blocks of attention; gpt2: GPT-2 blocks (LayerNorm, MLP)"), preset_choice},
      {"layers", K::whole, 1, kMaxLayers, field<&Config::layers>(), HELP("blocks (a single layer is 1)")},
      {"dModel", K::whole, 1, kMaxDModel, field<&Config::d_model>(), HELP("the width of each token's vector, divisible by heads")},
      {"heads", K::whole, 1, kMaxHeads, field<&Config::heads>(), HELP("attention heads, each of d_head = dModel / heads")},
      // Read back as the count in use, so a model's config and the catalog's defaults say the same.
      {"kvHeads", K::whole, 0, kMaxHeads,
       {[](const Config& c) { return static_cast<double>(c.kv_heads_or_heads()); },
        [](Config& c, double v) { c.kv_heads = static_cast<int>(v); }},
       HELP("key/value heads, dividing heads (1: multi-query; fewer: grouped-query); unless given, and given 0, as many as heads")},
      {"causal", K::flag, 0, 0, field<&Config::causal>(), HELP("each position sees only itself and earlier ones (models with blocks always)"),
       {}, nullptr, true},
      {"seed", K::whole, 0, kMaxSafeInteger, field<&Config::seed>(), HELP("the seed of the random weights and embeddings")},
      {"vocabSize", K::whole, 1, kMaxVocab, field<&Config::vocab_size>(), HELP("ids are 0 … vocabSize − 1")},
      {"maxPositions", K::whole, 1, kMaxSeq, field<&Config::max_positions>(), HELP("rows of the learned position table (models with blocks)"),
       {}, nullptr, true},
      {"readouts", K::whole, 1, kMaxReadouts, field<&Config::readouts>(),
       HELP("tokens predicted at each position: 1, or the recall task's K (attn-only)"), {}, nullptr, true},
  };
  static const std::vector<OptionSpec<Config>> rows = table(kRows);
  return rows;
}

const std::vector<OptionSpec<Recipe>>& recipe_options() {
  static constexpr OptionSpec<Recipe> kRows[] = {
      // First, and all of the recipe: the options after it (and the model's) change the task's recipe.
      {"task", K::choice, 0, 0,
       {[](const Recipe& r) { return static_cast<double>(r.task); },
        [](Recipe& r, double v) { r = recipe_of(static_cast<TaskKind>(v)); }},
       HELP("induction: [0, s1 … sL, s1 … sL]; recall: the K ids before each position; corpus: the next token of real text. "
            "Unset options take its recipe"),
       task_choice},
      {"batch", K::whole, 1, kMaxBatch, field<&Recipe::batch>(), HELP("sequences in each step")},
      {"lr", K::positive, 0, 1, field<&Recipe::adam, &AdamSettings::lr>(), HELP("Adam's learning rate")},
      {"beta1", K::fraction, 0, 0, field<&Recipe::adam, &AdamSettings::beta1>(), HELP("Adam's β1: how slowly its mean of the gradients forgets")},
      {"beta2", K::fraction, 0, 0, field<&Recipe::adam, &AdamSettings::beta2>(), HELP("Adam's β2: the same for its mean of their squares")},
      {"eps", K::positive, 0, 1, field<&Recipe::adam, &AdamSettings::eps>(), HELP("Adam's ε, added to the root of that mean")},
      {"weightDecay", K::number, 0, 1, field<&Recipe::adam, &AdamSettings::weight_decay>(),
       HELP("AdamW's decoupled weight decay: each step first shrinks every weight by lr × this share of it")},
      {"initStd", K::positive, 0, 1, field<&Recipe::init_std>(), HELP("the standard deviation of the initial weights")},
      {"steps", K::whole, 1, kMaxTrainingSteps, field<&Recipe::steps>(),
       HELP("the steps the learning rate's schedule spans (and the page trains)")},
      {"warmup", K::whole, 0, kMaxTrainingSteps, field<&Recipe::warmup>(), HELP("steps over which the learning rate rises from 0")},
      {"finalLr", K::positive, 0, 1, field<&Recipe::final_lr>(),
       HELP("the last step's share of the learning rate, reached linearly after the warm-up (1: constant)")},
      {"minLength", K::whole, 2, kMaxInductionLength, field<&Recipe::induction, &InductionTask::min_length>(),
       HELP("the shortest repeat L"), {}, "induction"},
      {"maxLength", K::whole, 2, kMaxInductionLength, field<&Recipe::induction, &InductionTask::max_length>(),
       HELP("the longest repeat L"), {}, "induction"},
      {"recall", K::whole, 1, kMaxReadouts, field<&Recipe::recall, &RecallTask::readouts>(),
       HELP("K: readout k predicts the id k places back"), {}, "recall"},
      {"length", K::whole, 2, kMaxSeq, field<&Recipe::recall, &RecallTask::length>(), HELP("ids in each sequence"), {}, "recall"},
      {"corpus", K::choice, 0, 0,
       {[](const Recipe& r) {
          const auto& names = corpus_names();
          return static_cast<double>(std::find(names.begin(), names.end(), r.corpus.corpus) - names.begin());
        },
        [](Recipe& r, double v) { r.corpus.corpus = corpus_names()[static_cast<size_t>(v)]; }},
       HELP("tang: the Tang poems, by character; brown: the Brown corpus, by word (its text is the Trainer's second argument)"),
       corpus_choice, "corpus"},
      {"window", K::whole, 2, kMaxTextTokens, field<&Recipe::corpus, &CorpusTask::length>(),
       HELP("T: the tokens of each window it predicts from (the model's positions)"), {}, "corpus"},
  };
  static const std::vector<OptionSpec<Recipe>> rows = table(kRows);
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
  static constexpr OptionSpec<GenerateOptions> kRows[] = {
      {"tokens", K::whole, 1, kMaxSeq, field<&GenerateOptions::tokens>(), HELP("new tokens; the prompt and they must fit the model's positions")},
      {"temperature", K::number, 0, kMaxTemperature, field<&GenerateOptions::sampling, &SamplingOptions::temperature>(),
       HELP("0: greedy (the likeliest id); else a draw from softmax(logits / temperature)")},
      {"topK", K::whole, 0, kMaxVocab, field<&GenerateOptions::sampling, &SamplingOptions::top_k>(),
       HELP("0: no cut; else a draw among the k likeliest ids only")},
      {"topP", K::number, 0, 1, field<&GenerateOptions::sampling, &SamplingOptions::top_p>(),
       HELP("1: no cut; else a draw among the fewest likeliest ids whose probabilities reach topP")},
      {"seed", K::whole, 0, kMaxSafeInteger, field<&GenerateOptions::sampling, &SamplingOptions::seed>(),
       HELP("the draws' seed: the same seed, the same continuation")},
      {"top", K::whole, 1, kMaxVocab, field<&GenerateOptions::top>(), HELP("candidates each step lists")},
      {"cache", K::flag, 0, 0, field<&GenerateOptions::use_cache>(),
       HELP("false: run the whole sequence at every step instead of reading the KV cache (the same ids)")},
  };
  static const std::vector<OptionSpec<GenerateOptions>> rows = table(kRows);
  return rows;
}

const std::vector<OptionSpec<RunOptions>>& run_options() {
  static constexpr OptionSpec<RunOptions> kRows[] = {
      {"switchedOff", K::heads, 0, 0, {}, HELP("heads whose output is zeroed before the concat: [[layer, head], …]")},
  };
  static const std::vector<OptionSpec<RunOptions>> rows = table(kRows);
  return rows;
}

const std::vector<OptionSpec<AttributeOptions>>& attribute_options() {
  static constexpr OptionSpec<AttributeOptions> kRows[] = {
      {"position", K::whole, -1, INT_MAX, field<&AttributeOptions::position>(), HELP("the position whose logit is split; -1: the last")},
      {"token", K::whole, -1, INT_MAX, field<&AttributeOptions::token>(), HELP("the token whose logit is split; -1: the position's first choice")},
  };
  static const std::vector<OptionSpec<AttributeOptions>> rows = table(kRows);
  return rows;
}

const std::vector<OptionSpec<TaskSampleOptions>>& task_sample_options() {
  static constexpr OptionSpec<TaskSampleOptions> kRows[] = {
      {"samples", K::whole, 1, kMaxImportanceSamples, field<&TaskSampleOptions::samples>(),
       HELP("fresh sequences of the model's task; none: headImportance reads its input, prune takes catalog.importance.samples")},
      {"seed", K::whole, 0, kMaxSafeInteger, field<&TaskSampleOptions::seed>(), HELP("the seed they are drawn from")},
  };
  static const std::vector<OptionSpec<TaskSampleOptions>> rows = table(kRows);
  return rows;
}

const std::vector<OptionSpec<PatchOptions>>& patch_options() {
  static constexpr OptionSpec<PatchOptions> kRows[] = {
      {"clean", K::input, 0, 0, {}, HELP("the clean text or ids, whose run the patches take their activations from")},
      {"corrupt", K::input, 0, 0, {}, HELP("the corrupted text or ids, as many tokens: the run that is patched")},
      {"answer", K::whole, -1, INT_MAX, field<&PatchOptions::answer>(),
       HELP("m = logit[answer] − logit[wrong] at the last position; -1: the clean run's first choice")},
      {"wrong", K::whole, -1, INT_MAX, field<&PatchOptions::wrong>(), HELP("-1: the corrupted run's first choice")},
  };
  static const std::vector<OptionSpec<PatchOptions>> rows = table(kRows);
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
