#include "sweep_command.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/error.h"
#include "io/files.h"
#include "model/parameters.h"
#include "train/corpus_task.h"
#include "train/recipe.h"
#include "option_rows.h"

namespace mha_cli {

namespace {

struct SweepOptions {
  std::string task = "recall";
  std::vector<int> heads = mha::sweep_heads();
  mha::Recipe recipe = mha::recall_recipe();
  bool json = false;
  std::string csv;  // a file for the rows, without the times (which differ run to run): models/recall-sweep.csv
  // The corpus task: which corpus and where npm run corpus put it; the recipe's sizes (--layers, --d-model,
  // --steps, --window) replace the shipped corpus recipe's only where given.
  std::string corpus = "tang", corpus_dir = "build/corpus";
  int layers = 0, window = 0, batch = 0;
  CLI::Option *steps_option = nullptr, *d_model_option = nullptr;
  CLI::Option *seed_option = nullptr, *recall_option = nullptr;  // the recall task's alone: refused with the corpus's
  std::vector<uint64_t> seeds;
};

struct Row {
  int heads = 0, d_head = 0;
  int64_t parameters = 0;
  mha::RecallScores scores;
  mha::HeldoutScores heldout;  // the corpus task's: its held-out split
  uint64_t seed = 0;
  double seconds = 0;
};

// The corpus task at one head count and seed: the held-out loss (not <unk>) after training.
Row train_corpus(const mha::Recipe& base, int heads, uint64_t seed, bool terminal) {
  mha::Recipe r = base;
  r.config.heads = heads, r.config.seed = seed;
  mha::Training training(r);
  const auto start = std::chrono::steady_clock::now();
  for (int s = 1; s <= r.steps; ++s) {
    training.step();
    if (terminal && (s % 50 == 0 || s == r.steps)) std::fprintf(stderr, "\r  heads %d, seed %llu: step %d/%d ", heads, static_cast<unsigned long long>(seed), s, r.steps);
  }
  Row row;
  row.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  row.heads = heads, row.seed = seed;
  row.d_head = training.recipe().config.d_head();
  row.parameters = mha::parameter_count(training.recipe().config);
  row.heldout = mha::evaluate_heldout(training.model(), r.corpus.data->heldout, r.corpus.length);
  if (terminal) std::fprintf(stderr, "\r%60s\r", "");
  return row;
}

// Vaswani et al.'s Table 3 rows (A) on real text: one recipe, every head count at one d_model, each seed.
void sweep_corpus(const SweepOptions& o) {
  mha::Recipe recipe = mha::corpus_recipe(o.corpus, mha::load_corpus(o.corpus, o.corpus_dir));
  if (o.layers > 0) recipe.config.layers = o.layers;
  if (o.window > 0) recipe.corpus.length = o.window;
  if (o.batch > 0) recipe.batch = o.batch;
  if (o.steps_option->count() > 0) recipe.steps = o.recipe.steps, recipe.warmup = std::min(recipe.warmup, recipe.steps);
  if (o.d_model_option->count() > 0) recipe.config.d_model = o.recipe.config.d_model;
  recipe = mha::checked_recipe(recipe);
  if (!o.csv.empty()) mha::check_output_path(o.csv);
  const std::vector<uint64_t> seeds = o.seeds.empty() ? std::vector<uint64_t>{recipe.config.seed} : o.seeds;
  const bool terminal = isatty(fileno(stderr)) && !o.json;
  if (!o.json)
    std::printf("corpus task, %s: %d blocks, d_model %d, windows of %d, %d steps of batch %d; held-out loss (nats a token, not <unk>)\n"
                "%5s %6s %10s %6s %8s %8s %8s\n", o.corpus.c_str(), recipe.config.layers, recipe.config.d_model, recipe.corpus.length,
                recipe.steps, recipe.batch, "heads", "d_head", "params", "seed", "loss", "accuracy", "time");
  std::vector<Row> rows;
  for (int heads : o.heads)
    for (uint64_t seed : seeds) {
      rows.push_back(train_corpus(recipe, heads, seed, terminal));
      const Row& r = rows.back();
      if (o.json) continue;
      std::printf("%5d %6d %10lld %6llu %8.4f %8.4f %7.1fs\n", r.heads, r.d_head, static_cast<long long>(r.parameters),
                  static_cast<unsigned long long>(r.seed), r.heldout.loss, r.heldout.accuracy, r.seconds);
      std::fflush(stdout);
    }
  if (o.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const Row& r : rows)
      out.push_back({{"heads", r.heads}, {"dHead", r.d_head}, {"parameters", r.parameters}, {"seed", r.seed},
                     {"loss", r.heldout.loss}, {"accuracy", r.heldout.accuracy}, {"seconds", r.seconds}});
    std::printf("%s\n", out.dump(2).c_str());
  }
  if (!o.csv.empty()) {
    std::string text = "heads,d_head,parameters,seed,heldout_loss,heldout_accuracy\n";
    char line[160];
    for (const Row& r : rows) {
      std::snprintf(line, sizeof line, "%d,%d,%lld,%llu,%.4f,%.4f\n", r.heads, r.d_head, static_cast<long long>(r.parameters),
                    static_cast<unsigned long long>(r.seed), r.heldout.loss, r.heldout.accuracy);
      text += line;
    }
    mha::write_file_atomically(o.csv, std::vector<uint8_t>(text.begin(), text.end()));
    if (!o.json) std::printf("wrote %s\n", o.csv.c_str());
  }
}

Row train_one(const mha::Recipe& base, int heads, bool terminal) {
  mha::Recipe r = base;
  r.config.heads = heads;
  mha::Training training(r);  // checks heads against d_model
  const auto start = std::chrono::steady_clock::now();
  for (int s = 1; s <= r.steps; ++s) {
    training.step();
    if (terminal && (s % 50 == 0 || s == r.steps)) std::fprintf(stderr, "\r  heads %d: step %d/%d ", heads, s, r.steps);
  }
  Row row;
  row.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  row.heads = heads;
  row.d_head = training.recipe().config.d_head();
  row.parameters = mha::parameter_count(training.recipe().config);
  row.scores = training.recall_scores();
  if (terminal) std::fprintf(stderr, "\r%40s\r", "");
  return row;
}

std::string csv_of(const std::vector<Row>& rows, int K) {
  std::string out = "heads,d_head,parameters,loss,accuracy";
  for (int k = 1; k <= K; ++k) out += ",readout_" + std::to_string(k);
  out += "\n";
  char cell[64];
  for (const Row& r : rows) {
    std::snprintf(cell, sizeof cell, "%d,%d,%lld,%.4f,%.4f", r.heads, r.d_head, static_cast<long long>(r.parameters),
                  r.scores.loss, r.scores.mean_accuracy);
    out += cell;
    for (double a : r.scores.accuracy) std::snprintf(cell, sizeof cell, ",%.4f", a), out += cell;
    out += "\n";
  }
  return out;
}

void sweep(const SweepOptions& o) {
  if (o.heads.empty()) throw mha::Error("give at least one head count");
  const mha::TaskKind task = mha::parse_task(o.task);
  if (task != mha::TaskKind::recall && task != mha::TaskKind::corpus) throw mha::Error("the head-count sweep trains the recall or the corpus task");
  // An option of the other task would change nothing, silently: a corpus sweep with --seed 7 would train
  // the recipe's seed.
  if (task == mha::TaskKind::corpus && (o.seed_option->count() > 0 || o.recall_option->count() > 0))
    throw mha::Error("--seed and --recall go with --task recall (the corpus task's seeds: --seeds)");
  if (task == mha::TaskKind::recall && (!o.seeds.empty() || o.layers > 0 || o.window > 0 || o.batch > 0))
    throw mha::Error("--seeds, --layers, --window and --batch go with --task corpus");
  if (task == mha::TaskKind::corpus) return sweep_corpus(o);
  const mha::Recipe recipe = mha::checked_recipe(o.recipe);
  if (!o.csv.empty()) mha::check_output_path(o.csv);  // before the work, not after it
  const int K = recipe.recall.readouts;
  const bool terminal = isatty(fileno(stderr)) && !o.json;
  if (!o.json)
    std::printf("recall task, K = %d, d_model %d, %d steps of batch %d, seed %llu; accuracy on %d fresh sequences\n",
                K, recipe.config.d_model, recipe.steps, recipe.batch, static_cast<unsigned long long>(recipe.config.seed),
                mha::kRecallEvalSequences);
  std::vector<Row> rows;
  char cell[64];
  if (!o.json) {
    std::printf("%5s %6s %10s %8s %8s", "heads", "d_head", "params", "loss", "mean");
    for (int k = 1; k <= K; ++k) std::snprintf(cell, sizeof cell, "   i-%-2d", k), std::fputs(cell, stdout);
    std::printf(" %8s\n", "time");
    std::fflush(stdout);
  }
  for (int heads : o.heads) {
    rows.push_back(train_one(recipe, heads, terminal));
    const Row& r = rows.back();
    if (o.json) continue;
    std::printf("%5d %6d %10lld %8.4f %8.3f", r.heads, r.d_head, static_cast<long long>(r.parameters), r.scores.loss,
                r.scores.mean_accuracy);
    for (double a : r.scores.accuracy) std::printf(" %6.3f", a);
    std::printf(" %7.1fs\n", r.seconds);
    std::fflush(stdout);
  }
  if (o.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const Row& r : rows)
      out.push_back({{"heads", r.heads}, {"dHead", r.d_head}, {"parameters", r.parameters}, {"loss", r.scores.loss},
                     {"accuracy", r.scores.mean_accuracy}, {"perReadout", r.scores.accuracy}, {"seconds", r.seconds}});
    std::printf("%s\n", out.dump(2).c_str());
  }
  if (!o.csv.empty()) {
    const std::string text = csv_of(rows, K);
    mha::write_file_atomically(o.csv, std::vector<uint8_t>(text.begin(), text.end()));
    if (!o.json) std::printf("wrote %s\n", o.csv.c_str());
  }
}

}  // namespace

// What each task sweeps unless told otherwise, from the recipes, as the options that ask for it: the
// foot of --help (the options show no default of their own: each task's differs).
std::string sweep_footer() {
  char text[320];
  const mha::Recipe recall = mha::recall_recipe();
  std::snprintf(text, sizeof text, "Each task's recipe, which the options above change:\n  %-13s --d-model %d --recall %d --steps %d --seed %llu\n",
                "recall", recall.config.d_model, recall.recall.readouts, recall.steps, static_cast<unsigned long long>(recall.config.seed));
  std::string out = text;
  for (const std::string& corpus : mha::corpus_names()) {
    const mha::Recipe r = mha::corpus_recipe(corpus);
    std::snprintf(text, sizeof text, "  %-13s --layers %d --d-model %d --window %d --batch %d --steps %d --seeds %llu\n", ("corpus " + corpus).c_str(),
                  r.config.layers, r.config.d_model, r.corpus.length, r.batch, r.steps, static_cast<unsigned long long>(r.config.seed));
    out += text;
  }
  return out;
}

CLI::App* add_sweep_command(CLI::App& app) {
  auto o = std::make_shared<SweepOptions>();
  CLI::App* cmd = app.add_subcommand("sweep", "train the recall or the corpus task at several head counts of one d_model and compare them");
  cmd->footer(sweep_footer());
  cmd->add_option("--task", o->task, "the task: recall (predict the K ids before each position) or corpus (real text)")
      ->check(CLI::IsMember({"recall", "corpus"}));
  cmd->add_option("--corpus", o->corpus, "the corpus task's text: " + mha::corpus_choices())->check(CLI::IsMember(mha::corpus_names()));
  cmd->add_option("--corpus-dir", o->corpus_dir, "where npm run corpus wrote the corpus");
  cmd->add_option("--seeds", o->seeds, "corpus: seeds, comma-separated; each head count trains once per seed")->delimiter(',')->default_str("");
  cmd->add_option("--layers", o->layers, "corpus: blocks")->check(row_check(option_row(mha::model_options(), "layers")))->default_str("");
  cmd->add_option("--window", o->window, "corpus: tokens per window")->check(row_check(option_row(mha::recipe_options(), "window")))->default_str("");
  cmd->add_option("--batch", o->batch, "corpus: windows per step")->check(row_check(option_row(mha::recipe_options(), "batch")))->default_str("");
  cmd->add_option("--heads", o->heads, "head counts, comma-separated; each must divide d_model")->delimiter(',');
  o->seed_option = cmd->add_option("--seed", o->recipe.config.seed, "recall: seed of the initial weights and the data, the same for every head count")
                       ->default_str("");
  o->steps_option = cmd->add_option("--steps", o->recipe.steps, "optimiser steps per model")->check(row_check(option_row(mha::recipe_options(), "steps")))->default_str("");
  o->recall_option = cmd->add_option("--recall", o->recipe.recall.readouts, "recall: K, the ids before each position it predicts")
      ->check(row_check(option_row(mha::recipe_options(), "recall")))->default_str("");
  o->d_model_option = cmd->add_option("--d-model", o->recipe.config.d_model, "model width, split among the heads")
                          ->check(row_check(option_row(mha::model_options(), "dModel")))
                          ->default_str("");
  cmd->add_flag("--json", o->json, "print JSON instead of a table");
  cmd->add_option("--csv", o->csv, "also write the rows as CSV (no times: the same bytes every run)");
  cmd->callback([o] { sweep(*o); });
  return cmd;
}

}  // namespace mha_cli
