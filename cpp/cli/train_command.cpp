#include "train_command.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <memory>
#include <string>

#include "../core/error.h"
#include "../core/induction_task.h"
#include "../core/model_file.h"
#include "../core/safetensors.h"

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

struct TrainOptions {
  std::string preset = "attn-only", out, command;
  int layers = 2, heads = 4, d_model = 64, vocab = 64, steps = 1500, batch = 16, min_length = 4, max_length = 30;
  int eval_sequences = 20;
  int phase_every = 0;  // 0: do not look for the phase change
  uint64_t seed = 1;
  float lr = 3e-3f, init_std = 0.1f;
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
  mha::InductionRecipe recipe;
  mha::Config& c = recipe.config;
  c.preset = mha::parse_preset(o.preset.c_str());
  if (!mha::has_blocks(c.preset)) throw mha::Error("--preset must be attn-only or gpt2");
  c.layers = o.layers, c.heads = o.heads, c.d_model = o.d_model, c.vocab_size = o.vocab, c.seed = o.seed;
  recipe.task.min_length = o.min_length, recipe.task.max_length = o.max_length;
  recipe.batch = o.batch;
  recipe.adam.lr = o.lr;
  recipe.init_std = o.init_std;
  mha::InductionTraining training(recipe);
  const mha::InductionTask& task = training.recipe().task;

  std::string csv = "step,loss\n";
  const bool terminal = isatty(fileno(stderr));
  const CatchInterrupt catching;
  const auto start = std::chrono::steady_clock::now();
  const auto seconds_since_start = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  float loss = 0;
  int phase_step = 0;  // the first checked step where the induction score passed 0.7
  double phase_seconds = 0, checking = 0;
  for (int s = 1; s <= o.steps && !interrupted; ++s) {
    loss = training.step();
    csv += std::to_string(s) + "," + std::to_string(loss) + "\n";
    if (o.phase_every > 0 && phase_step == 0 && s % o.phase_every == 0) {
      const double before = seconds_since_start();
      const double score = training.induction_score();
      checking += seconds_since_start() - before;
      if (score >= 0.7) phase_step = s, phase_seconds = seconds_since_start() - checking;
    }
    if (terminal && (s % 10 == 0 || s == o.steps)) progress(s, o.steps, loss, seconds_since_start());
  }
  const double seconds = seconds_since_start() - checking;
  if (terminal) std::fputc('\n', stderr);
  const int steps_done = training.trainer().steps_done();
  stop_if_interrupted(steps_done);

  const std::vector<mha::InductionScores> scores =
      evaluate_induction(training.model(), task, mha::derive_seed(o.seed, 3000), o.eval_sequences);
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
                o.min_length, o.max_length, min_accuracy, min_previous, min_induction);
  std::printf("trained %d steps in %.1f s (%.0f steps/s), final loss %.3f\n%s\n", o.steps, seconds, o.steps / seconds,
              loss, summary);
  if (o.phase_every > 0) {
    if (phase_step) std::printf("phase change (induction score ≥ 0.7, checked every %d steps): step %d, %.1f s\n", o.phase_every, phase_step, phase_seconds);
    else std::printf("phase change (induction score ≥ 0.7, checked every %d steps): not reached\n", o.phase_every);
  }

  char text[512];
  std::snprintf(text, sizeof text,
                "induction task [0, s1..sL, s1..sL], s uniform in 1..%d, L uniform in %d..%d per batch; batch %d; "
                "%d steps; AdamW lr %g betas (0.9, 0.999) eps 1e-8, no weight decay; init uniform with std %g "
                "(projections into the residual stream std/sqrt(2·layers)); seed %llu",
                o.vocab - 1, o.min_length, o.max_length, o.batch, o.steps, o.lr, o.init_std,
                static_cast<unsigned long long>(o.seed));
  const std::vector<uint8_t> bytes = mha::write_model(
      training.trainer().weights(), training.recipe().config,
      {{"recipe", text}, {"seed", std::to_string(o.seed)}, {"command", o.command}, {"evaluation", summary},
       {"start_token", "0"}, {"tokenizer", "first-appearance"}});
  stop_if_interrupted(steps_done);
  // Both files written beside their targets first, then both moved into place: a Ctrl-C up to the
  // last check leaves nothing; after it the two renames finish together.
  const std::string csv_path = loss_csv_path(o.out);
  std::vector<std::string> partials = {mha::write_partial_file(o.out, bytes)};
  try {
    partials.push_back(mha::write_partial_file(csv_path, std::vector<uint8_t>(csv.begin(), csv.end())));
  } catch (...) {
    std::remove(partials[0].c_str());
    throw;
  }
  stop_if_interrupted(steps_done, partials);
  mha::move_into_place(partials[0], o.out);
  mha::move_into_place(partials[1], csv_path);
  std::printf("wrote %s and %s\n", o.out.c_str(), loss_csv_path(o.out).c_str());
}

}  // namespace

CLI::App* add_train_command(CLI::App& app, const std::string& command_line) {
  auto o = std::make_shared<TrainOptions>();
  CLI::App* cmd = app.add_subcommand("train", "train a small model on the induction task and write it");
  cmd->add_option("--preset", o->preset, "attn-only or gpt2")->check(CLI::IsMember({"attn-only", "gpt2"}));
  cmd->add_option("--layers", o->layers, "blocks");
  cmd->add_option("--heads", o->heads, "attention heads per block");
  cmd->add_option("--d-model", o->d_model, "model width");
  cmd->add_option("--vocab", o->vocab, "vocabulary: id 0 is the start token, 1 … vocab−1 the random tokens")
      ->check(CLI::Range(3, 1 << 20));
  cmd->add_option("--steps", o->steps, "optimiser steps")->check(CLI::Range(1, 10000000));
  cmd->add_option("--batch", o->batch, "sequences per step")->check(CLI::Range(1, 4096));
  cmd->add_option("--lr", o->lr, "AdamW learning rate")->check(CLI::PositiveNumber);
  cmd->add_option("--init-std", o->init_std, "spread of the initial weights")->check(CLI::PositiveNumber);
  cmd->add_option("--min-length", o->min_length, "shortest repeated part L");
  cmd->add_option("--max-length", o->max_length, "longest repeated part L");
  cmd->add_option("--seed", o->seed, "seed of the initial weights and the data");
  cmd->add_option("--phase-every", o->phase_every, "check the induction score every N steps and report the phase change (0: no)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--eval-sequences", o->eval_sequences, "fresh sequences per L for the final check")->check(CLI::Range(1, 100000));
  cmd->add_option("--out", o->out, "the model file (.safetensors); the loss curve goes beside it as .loss.csv")->required();
  cmd->callback([o, command_line] {
    o->command = command_line;
    train(*o);
  });
  return cmd;
}

}  // namespace mha_cli
