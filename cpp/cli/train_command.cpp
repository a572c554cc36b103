#include "train_command.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <map>
#include <memory>
#include <string>

#include "base/error.h"
#include "train/induction_task.h"
#include "io/model_file.h"
#include "io/files.h"

namespace mha_cli {

namespace {

std::atomic<bool> interrupted{false};
extern "C" void on_interrupt(int) { interrupted = true; }

// Ctrl-C only sets `interrupted` while this lives: from the first step until the model and its loss
// curve are both in place, so an interrupted run leaves neither (nor a new model beside an old CSV).
struct CatchInterrupt {
  CatchInterrupt() : previous(std::signal(SIGINT, on_interrupt)) { interrupted = false; }
  ~CatchInterrupt() { std::signal(SIGINT, previous); }
  CatchInterrupt(const CatchInterrupt&) = delete;
  CatchInterrupt& operator=(const CatchInterrupt&) = delete;
  void (*previous)(int);
};

// Throws Interrupted when Ctrl-C came; `partials` are removed first.
void stop_if_interrupted(int step, const std::vector<std::string>& partials = {}) {
  if (!interrupted) return;
  for (const std::string& p : partials) std::remove(p.c_str());
  throw Interrupted("interrupted at step " + std::to_string(step) + ": nothing written");
}

// The options write straight into the recipe, so its defaults (core/induction_task.h) are the CLI's.
struct TrainOptions {
  mha::InductionRecipe recipe = mha::induction_recipe();
  std::string preset = mha::preset_name(recipe.config.preset), out, command;
  int eval_sequences = 20;
  int phase_every = 0;  // 0: do not look for the phase change
};

std::string loss_csv_path(const std::string& out) {
  const std::string ext = ".safetensors";
  const std::string stem = out.size() > ext.size() && out.compare(out.size() - ext.size(), ext.size(), ext) == 0
                               ? out.substr(0, out.size() - ext.size())
                               : out;
  return stem + ".loss.csv";
}

void progress(int step, int steps, float loss, double seconds) {
  const double rate = step / std::max(seconds, 1e-9);
  const int width = 30, filled = static_cast<int>(static_cast<double>(width) * step / steps);
  std::fprintf(stderr, "\r[%s%s] step %d/%d  loss %.3f  %.0f steps/s  ETA %.0f s  ", std::string(filled, '#').c_str(),
               std::string(width - filled, '.').c_str(), step, steps, loss, rate, (steps - step) / std::max(rate, 1e-9));
}

void train(const TrainOptions& o) {
  mha::InductionRecipe recipe = o.recipe;
  recipe.config.preset = mha::parse_preset(o.preset.c_str());
  if (!mha::has_blocks(recipe.config.preset)) throw mha::Error("--preset must be attn-only or gpt2");
  mha::InductionTraining training(recipe);  // every setting and the memory they imply checked here
  const mha::InductionTask& task = training.recipe().task;
  const std::string csv_path = loss_csv_path(o.out);
  mha::check_output_path(o.out);  // before the work, not after it
  mha::check_output_path(csv_path);

  std::string csv = "step,loss\n";
  const bool terminal = isatty(fileno(stderr));
  const CatchInterrupt catching;
  const auto start = std::chrono::steady_clock::now();
  const auto seconds_since_start = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  float loss = 0;
  int phase_step = 0;  // the first checked step where the induction score reached kPhaseChangeScore
  double phase_seconds = 0, checking = 0;
  for (int s = 1; s <= recipe.steps && !interrupted; ++s) {
    loss = training.step();
    csv += std::to_string(s) + "," + std::to_string(loss) + "\n";
    if (o.phase_every > 0 && phase_step == 0 && s % o.phase_every == 0) {
      const double before = seconds_since_start();
      const double score = training.induction_score();
      checking += seconds_since_start() - before;
      if (score >= mha::kPhaseChangeScore) phase_step = s, phase_seconds = seconds_since_start() - checking;
    }
    if (terminal && (s % 10 == 0 || s == recipe.steps)) progress(s, recipe.steps, loss, seconds_since_start());
  }
  const double seconds = seconds_since_start() - checking;
  if (terminal) std::fputc('\n', stderr);
  const int steps_done = training.trainer().steps_done();
  stop_if_interrupted(steps_done);

  const std::vector<mha::InductionScores> scores =
      evaluate_induction(training.model(), task, mha::derive_seed(o.recipe.config.seed, 3000), o.eval_sequences,
                         [] { return interrupted.load(); });
  stop_if_interrupted(steps_done);
  double min_accuracy = 1, min_previous = 1, min_induction = 1;
  for (const auto& s : scores) {
    min_accuracy = std::min(min_accuracy, s.accuracy);
    min_previous = std::min(min_previous, s.previous_token);
    min_induction = std::min(min_induction, s.induction);
  }
  char summary[256];
  std::snprintf(summary, sizeof summary,
                "over L = %d…%d on fresh sequences, the worst L: accuracy on the repeat %.3f, layer-0 previous-token "
                "head %.3f, last-layer induction head %.3f",
                task.min_length, task.max_length, min_accuracy, min_previous, min_induction);
  std::printf("trained %d steps in %.1f s (%.0f steps/s), final loss %.3f\n%s\n", steps_done, seconds, steps_done / seconds,
              loss, summary);
  if (o.phase_every > 0) {
    std::printf("phase change (induction score ≥ %g, checked every %d steps): ", mha::kPhaseChangeScore, o.phase_every);
    if (phase_step) std::printf("step %d, %.1f s\n", phase_step, phase_seconds);
    else std::printf("not reached\n");
  }

  std::map<std::string, std::string> metadata = mha::training_metadata(training.recipe(), steps_done);
  metadata["command"] = o.command;
  metadata["evaluation"] = summary;
  const std::vector<uint8_t> bytes = mha::write_model(training.trainer().weights(), training.recipe().config, metadata);
  stop_if_interrupted(steps_done);
  // Both files written beside their targets first, then both moved into place, all or none: a Ctrl-C
  // up to the last check leaves nothing; after it the two renames finish together.
  std::vector<std::string> partials = {mha::write_partial_file(o.out, bytes)};
  try {
    partials.push_back(mha::write_partial_file(csv_path, std::vector<uint8_t>(csv.begin(), csv.end())));
  } catch (...) {
    std::remove(partials[0].c_str());
    throw;
  }
  stop_if_interrupted(steps_done, partials);
  mha::move_all_into_place({{partials[0], o.out}, {partials[1], csv_path}});
  std::printf("wrote %s and %s\n", o.out.c_str(), loss_csv_path(o.out).c_str());
}

}  // namespace

CLI::App* add_train_command(CLI::App& app, const std::string& command_line) {
  auto o = std::make_shared<TrainOptions>();
  CLI::App* cmd = app.add_subcommand("train", "train a small model on the induction task and write it");
  cmd->add_option("--preset", o->preset, "attn-only or gpt2")->check(CLI::IsMember({"attn-only", "gpt2"}));
  cmd->add_option("--layers", o->recipe.config.layers, "blocks");
  cmd->add_option("--heads", o->recipe.config.heads, "attention heads per block");
  cmd->add_option("--d-model", o->recipe.config.d_model, "model width");
  cmd->add_option("--vocab", o->recipe.config.vocab_size,
                  "vocabulary: id 0 is the start token, 1 … vocab−1 the random tokens");
  cmd->add_option("--steps", o->recipe.steps, "optimiser steps")->check(CLI::Range(1, 10000000));
  cmd->add_option("--batch", o->recipe.batch, "sequences per step");
  cmd->add_option("--lr", o->recipe.adam.lr, "AdamW learning rate")->check(CLI::PositiveNumber);
  cmd->add_option("--init-std", o->recipe.init_std, "spread of the initial weights")->check(CLI::PositiveNumber);
  cmd->add_option("--min-length", o->recipe.task.min_length, "shortest repeated part L");
  cmd->add_option("--max-length", o->recipe.task.max_length, "longest repeated part L");
  cmd->add_option("--seed", o->recipe.config.seed, "seed of the initial weights and the data");
  cmd->add_option("--phase-every", o->phase_every, "check the induction score every N steps and report the phase change (0: no)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--eval-sequences", o->eval_sequences, "fresh sequences per L for the final check")
      ->check(CLI::Range(1, mha::kMaxEvalSequences));
  cmd->add_option("--out", o->out, "the model file (.safetensors); the loss curve goes beside it as .loss.csv")->required();
  cmd->callback([o, command_line] {
    o->command = command_line;
    train(*o);
  });
  return cmd;
}

}  // namespace mha_cli
