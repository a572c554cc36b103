#include "prune_command.h"

#include <cstdio>
#include <memory>
#include <string>

#include "analysis/importance.h"
#include "analysis/pruning.h"
#include "run_options.h"

namespace mha_cli {

namespace {

struct PruneOptions {
  RunOptions model;  // --model, --layout, --heads
  int samples = mha::kImportanceSamples;
  uint64_t seed = mha::kImportanceSeed;
  bool json = false;
};

std::string report(const mha::Pruning& pruning, const PruneOptions& o, const std::string& samples) {
  std::string out = "heads of " + o.model.model_path + " removed one at a time, least important first (|dL/d gate| on " +
                    samples + ")\nremoved  head  importance    loss  accuracy\n";
  char line[80], importance[16];
  for (const mha::PruneStep& s : pruning.steps) {
    // each step names the head it removed and the importance that put it there ("—" and none at step 0)
    std::string head = "—";
    importance[0] = '\0';
    if (!s.removed.empty()) {
      const auto [l, h] = s.removed.back();
      head = std::to_string(l) + "." + std::to_string(h);
      std::snprintf(importance, sizeof importance, "%.4f", pruning.importance.importance[static_cast<size_t>(l)][static_cast<size_t>(h)]);
    }
    std::snprintf(line, sizeof line, "%7zu  %4s  %10s  %6.3f  %8.3f\n", s.removed.size(), head.c_str(), importance, s.loss, s.accuracy);
    out += line;
  }
  return out;
}

}  // namespace

CLI::App* add_prune_command(CLI::App& app) {
  auto o = std::make_shared<PruneOptions>();
  CLI::App* cmd = app.add_subcommand("prune", "remove heads one at a time, least important first: loss and accuracy after each");
  cmd->add_option("--model", o->model.model_path, "safetensors file with a whole model (gpt2 or attn-only layout)")->required();
  cmd->add_option("--layout", o->model.layout, "names in the file (default: guessed from them)")
      ->check(CLI::IsMember(mha::preset_names(true)));
  cmd->add_option("--heads", o->model.config.heads, "attention heads (default: the file's __metadata__)")
      ->each([o](const std::string&) { o->model.heads_given = true; });
  cmd->add_option("--samples", o->samples,
                  "fresh sequences of the model's task to measure on (a model of real text: windows of its held-out excerpt)")
      ->check(CLI::Range(1, mha::kMaxImportanceSamples));
  cmd->add_option("--seed", o->seed, "seed of those sequences (none for held-out text: its first windows)");
  cmd->add_flag("--json", o->json, "print {importance: {layers: [{heads: [{importance, importance_normalised}]}]}, steps: [{removed: [[layer, head], …], loss, accuracy}]}");
  cmd->callback([o] {
    const mha::Model model = load_model(o->model);
    std::string samples;
    const mha::Pruning pruning = mha::prune_heads(model, analysis_samples(model, o->model.model_path, o->samples, o->seed, &samples));
    if (o->json) std::printf("%s\n", mha::prune_to_json(pruning).dump(2).c_str());
    else std::fputs(report(pruning, *o, samples).c_str(), stdout);
  });
  return cmd;
}

}  // namespace mha_cli
