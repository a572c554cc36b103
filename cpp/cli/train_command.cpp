#include "train_command.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <functional>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/error.h"
#include "train/recipe.h"
#include "io/model_file.h"
#include "io/files.h"
#include "option_rows.h"
#include "options.h"
#include "train/checkpoint.h"
#include "train/corpus_task.h"

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

// Throws Interrupted when Ctrl-C came; `partials` are removed first. `kept`: what the run left that
// is whole (its checkpoint), named in the message.
void stop_if_interrupted(int step, const std::vector<std::string>& partials = {}, const std::string& kept = "") {
  if (!interrupted) return;
  for (const std::string& p : partials) std::remove(p.c_str());
  throw Interrupted("interrupted at step " + std::to_string(step) + ": " +
                    (kept.empty() ? "nothing written" : "no model written; " + kept + " holds the run, and --resume goes on from it"));
}

// Each option writes into `given`, whose defaults (the induction recipe's, core/train/recipe.h) are
// what --help shows; a run starts from its task's recipe and takes from `given` only the options the
// command line set, so `--task recall` trains the recall recipe unless told otherwise.
struct TrainOptions {
  mha::Recipe given = mha::induction_recipe();
  std::string task = mha::task_name(given.task);
  std::string preset = mha::preset_name(given.config.preset), out, command;
  CLI::Option* preset_option = nullptr;
  // The corpus task: which corpus, where `npm run corpus` put its splits, and the shipped held-out
  // excerpt whose bigram baseline the file records (the tests compare the model with it).
  std::string corpus = "tang", corpus_dir = "build/corpus", excerpt;
  int eval_sequences = 20;
  int phase_every = 0;  // 0: do not look for the phase change
  // A run longer than a sitting: its whole state written beside --out every so often and at --stop-at,
  // and --resume going on from there (train/checkpoint.h).
  double checkpoint_minutes = 10;  // 0: never
  int stop_at = 0;                 // 0: train to the recipe's last step
  bool resume = false;
  // The model every N steps (and at step 0) into OUT.history/, for the history of how its heads formed.
  int snapshot_every = 0;
  CLI::Option* vocab_option = nullptr;
  std::vector<std::pair<CLI::Option*, std::function<void(mha::Recipe& to, const mha::Recipe& from)>>> fields;
};

// --name writing field(given), with the help and limits of the options table's row that sets the same in
// the module (option_rows.h), or `help` where the command line says more. Its default is the task's
// recipe's (recipes_footer), not one number: --help shows none beside it.
template <typename T, class Target>
CLI::Option* recipe_option(CLI::App* cmd, TrainOptions& o, const char* name, T& (*field)(mha::Recipe&),
                           const mha::OptionSpec<Target>& row, const std::string& help = "") {
  CLI::Option* option = cmd->add_option(name, field(o.given), help.empty() ? row_help(row) : help)->default_str("");
  option->check(row_check(row));
  o.fields.push_back({option, [field](mha::Recipe& to, const mha::Recipe& from) { field(to) = field(const_cast<mha::Recipe&>(from)); }});
  return option;
}

// A recipe's row and a model's row of the options table, by key.
const mha::OptionSpec<mha::Recipe>& recipe_row(const char* key) { return option_row(mha::recipe_options(), key); }
const mha::OptionSpec<mha::Config>& model_row(const char* key) { return option_row(mha::model_options(), key); }

// What each task trains unless told otherwise, from the recipes themselves and as the options that
// would ask for it: the foot of --help.
std::string recipes_footer() {
  const auto line = [](const std::string& name, const mha::Recipe& r) {
    char text[400];
    std::snprintf(text, sizeof text, "  %-13s --preset %s --layers %d --heads %d --d-model %d --vocab %d", name.c_str(),
                  mha::preset_name(r.config.preset), r.config.layers, r.config.heads, r.config.d_model, r.config.vocab_size);
    std::string out = text;
    if (r.task == mha::TaskKind::induction)
      std::snprintf(text, sizeof text, " --min-length %d --max-length %d", r.induction.min_length, r.induction.max_length);
    else if (r.task == mha::TaskKind::recall)
      std::snprintf(text, sizeof text, " --recall %d --length %d", r.recall.readouts, r.recall.length);
    else
      std::snprintf(text, sizeof text, " --window %d", r.corpus.length);
    out += text;
    std::snprintf(text, sizeof text,
                  " --batch %d --steps %d --lr %g --beta1 %g --beta2 %g --eps %g --weight-decay %g --warmup %d --final-lr %g --init-std %g --seed %llu\n",
                  r.batch, r.steps, r.adam.lr, r.adam.beta1, r.adam.beta2, r.adam.eps, r.adam.weight_decay, r.warmup, r.final_lr, r.init_std,
                  static_cast<unsigned long long>(r.config.seed));
    return out + text;
  };
  std::string out = "Each task trains its own recipe, which the options above change:\n";
  out += line("induction", mha::induction_recipe());
  out += line("recall", mha::recall_recipe());
  for (const std::string& corpus : mha::corpus_names()) out += line("corpus " + corpus, mha::corpus_recipe(corpus));
  return out;
}

mha::Recipe recipe_of(const TrainOptions& o) {
  const mha::TaskKind task = mha::parse_task(o.task);
  // The corpus task's --vocab keeps the corpus's most frequent tokens; its recipe's vocabulary is the corpus's.
  const int most_frequent = task == mha::TaskKind::corpus && o.vocab_option->count() > 0 ? o.given.config.vocab_size : 0;
  mha::Recipe r = task == mha::TaskKind::corpus ? mha::corpus_recipe(o.corpus, mha::load_corpus(o.corpus, o.corpus_dir, most_frequent))
                                                : mha::recipe_of(task);
  for (const auto& [option, copy] : o.fields)
    if (option->count() > 0) copy(r, o.given);
  if (task != mha::TaskKind::corpus || o.preset_option->count() > 0) r.config.preset = mha::parse_preset(o.preset.c_str());
  if (!mha::has_blocks(r.config.preset)) throw mha::Error("--preset must be attn-only or gpt2");
  return mha::checked_recipe(r);
}

std::string beside(const std::string& out, const std::string& suffix) {
  const std::string ext = ".safetensors";
  const std::string stem = out.size() > ext.size() && out.compare(out.size() - ext.size(), ext.size(), ext) == 0
                               ? out.substr(0, out.size() - ext.size())
                               : out;
  return stem + suffix;
}
std::string loss_csv_path(const std::string& out) { return beside(out, ".loss.csv"); }

// The loss on the last line of a loss curve ("step,loss\n" and a line a step), 0 before any step.
float last_loss(const std::string& csv) {
  const size_t end = csv.find_last_not_of('\n');
  const size_t comma = csv.rfind(',', end);
  const size_t line = csv.rfind('\n', end);
  if (comma == std::string::npos || (line != std::string::npos && line > comma) || csv.compare(0, comma, "step") == 0) return 0;
  return std::strtof(csv.c_str() + comma + 1, nullptr);
}
std::string checkpoint_path(const std::string& out) { return beside(out, ".checkpoint.safetensors"); }

// What a run carries across a stop besides the trainer's state: its loss curve so far, the seconds it
// spent, the command that started it and the steps it was resumed at (which the model file records).
struct RunSoFar {
  std::string csv = "step,loss\n", command, resumed_at;
  double seconds = 0;
};

// The run's state and what the command keeps of it, written whole or not at all.
void write_checkpoint_file(const mha::Training& training, const std::string& path, const RunSoFar& run) {
  char spent[32];
  std::snprintf(spent, sizeof spent, "%.3f", run.seconds);
  const std::vector<uint8_t> bytes = mha::write_checkpoint(
      training, {{"losses", run.csv}, {"seconds", spent}, {"command", run.command}, {"resumed_at", run.resumed_at}});
  mha::move_all_into_place({{mha::write_partial_file(path, bytes), path}});
}

// On a terminal, a bar redrawn in place; into a log (an hour-long corpus run under nohup), one line a
// minute, so that a maintainer can tell a slow run from a stuck one.
// `before`: the steps a resumed run found done, which this sitting's rate does not count.
void progress(int step, int before, int steps, float loss, double seconds, bool terminal) {
  const double rate = (step - before) / std::max(seconds, 1e-9), eta = (steps - step) / std::max(rate, 1e-9);
  if (!terminal) {
    std::fprintf(stderr, "step %d/%d  loss %.3f  %.2f steps/s  ETA %.0f s\n", step, steps, loss, rate, eta);
    return;
  }
  const int width = 30, filled = static_cast<int>(static_cast<double>(width) * step / steps);
  std::fprintf(stderr, "\r[%s%s] step %d/%d  loss %.3f  %.0f steps/s  ETA %.0f s  ", std::string(filled, '#').c_str(),
               std::string(width - filled, '.').c_str(), step, steps, loss, rate, eta);
}

// What the trained model does, on fresh sequences: one line for the file's __metadata__ and the terminal.
std::string induction_summary(const mha::Training& training, int sequences) {
  const mha::Recipe& r = training.recipe();
  const std::vector<mha::InductionScores> scores =
      evaluate_induction(training.model(), r.induction, mha::evaluation_seed(r), sequences, [] { return interrupted.load(); });
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
                r.induction.min_length, r.induction.max_length, min_accuracy, min_previous, min_induction);
  return summary;
}

std::string recall_summary(const mha::Training& training) {
  const mha::RecallScores s = training.recall_scores();
  std::string out = "on " + std::to_string(mha::kRecallEvalSequences) + " fresh sequences: accuracy per readout (k = 1…" +
                    std::to_string(s.accuracy.size()) + ")";
  char cell[64];
  for (double a : s.accuracy) std::snprintf(cell, sizeof cell, " %.3f", a), out += cell;
  std::snprintf(cell, sizeof cell, ", mean %.3f, loss %.4f; each head's strongest offset:", s.mean_accuracy, s.loss);
  out += cell;
  for (size_t h = 0; h < s.stripe.size(); ++h) {
    const auto best = std::max_element(s.stripe[h].begin(), s.stripe[h].end());
    std::snprintf(cell, sizeof cell, " h%zu i-%d %.2f", h, static_cast<int>(best - s.stripe[h].begin()) + 1, *best);
    out += cell;
  }
  return out;
}

// The corpus task's figures, on held-out text: the model's loss (targets that are not <unk>) beside the
// best interpolated bigram of the same vocabulary, on the whole held-out split and on the shipped excerpt.
std::string corpus_summary(const mha::Training& training, const std::string& excerpt_path,
                           std::map<std::string, std::string>& metadata) {
  const mha::Recipe& r = training.recipe();
  const mha::Corpus& corpus = *r.corpus.data;
  const int V = r.config.vocab_size, T = r.corpus.length;
  const mha::Model model = training.model();
  const auto figure = [](double v) {
    char cell[32];
    std::snprintf(cell, sizeof cell, "%.4f", v);
    return std::string(cell);
  };
  const mha::HeldoutScores held = mha::evaluate_heldout(model, corpus.heldout, T);
  const mha::BigramScore bigram = mha::bigram_heldout_loss(corpus.train, corpus.heldout, V);
  metadata["heldout_loss"] = figure(held.loss);
  metadata["heldout_accuracy"] = figure(held.accuracy);
  metadata["bigram_heldout_loss"] = figure(bigram.loss);
  std::string out = "held-out split (" + std::to_string(held.windows) + " windows): loss " + figure(held.loss) + " nats a token (not <unk>), accuracy " +
                    figure(held.accuracy) + "; interpolated bigram " + figure(bigram.loss) + " (λ " + figure(bigram.lambda) + ")";
  if (!excerpt_path.empty()) {
    const std::vector<uint8_t> bytes = mha::read_file(excerpt_path);
    const std::vector<int32_t> ids = corpus.tokenizer->tokenize_all(std::string(bytes.begin(), bytes.end())).ids;
    const mha::HeldoutScores ex = mha::evaluate_heldout(model, ids, T);
    const mha::BigramScore ex_bigram = mha::bigram_heldout_loss(corpus.train, ids, V);
    metadata["excerpt_heldout_loss"] = figure(ex.loss);
    metadata["excerpt_bigram_loss"] = figure(ex_bigram.loss);
    out += "; shipped excerpt: loss " + figure(ex.loss) + ", bigram " + figure(ex_bigram.loss);
  }
  return out;
}

void train(const TrainOptions& o) {
  const mha::Recipe recipe = recipe_of(o);  // every setting and the memory they imply checked here
  const bool induction = recipe.task == mha::TaskKind::induction;
  if (o.phase_every > 0 && !induction) throw mha::Error("--phase-every looks for induction heads: the induction task's");
  if (o.phase_every > 0 && (o.resume || o.stop_at > 0)) throw mha::Error("--phase-every times one unbroken run: not with --resume or --stop-at");
  if (o.stop_at > recipe.steps)
    throw mha::Error("--stop-at " + std::to_string(o.stop_at) + " is past the run's last step, " + std::to_string(recipe.steps));
  mha::check_writable(recipe.config);  // what it trains must have a file
  mha::Training training(recipe);
  const std::string csv_path = loss_csv_path(o.out), checkpoint = checkpoint_path(o.out);
  mha::check_output_path(o.out);  // before the work, not after it
  mha::check_output_path(csv_path);
  mha::check_output_path(checkpoint);

  RunSoFar before;  // what the runs this one resumes did
  before.command = o.command;
  if (o.resume) {
    if (access(checkpoint.c_str(), F_OK) != 0)
      throw mha::Error("--resume: there is no " + checkpoint + " to go on from (a run with --out " + o.out +
                       " writes it every --checkpoint-minutes and at --stop-at)");
    const std::map<std::string, std::string> kept = mha::restore_checkpoint(training, mha::read_file(checkpoint), checkpoint);
    const auto kept_or = [&](const char* key, const std::string& otherwise) { return kept.count(key) ? kept.at(key) : otherwise; };
    before.csv = kept_or("losses", before.csv);
    before.seconds = std::atof(kept_or("seconds", "0").c_str());
    before.command = kept_or("command", before.command);
    before.resumed_at = kept_or("resumed_at", "");
    before.resumed_at += (before.resumed_at.empty() ? "" : ", ") + std::to_string(training.trainer().steps_done());
    std::fprintf(stderr, "resuming from %s at step %d of %d\n", checkpoint.c_str(), training.trainer().steps_done(), recipe.steps);
  }
  std::string csv = before.csv;
  const auto so_far = [&](double seconds) {
    RunSoFar run = before;
    run.csv = csv, run.seconds = seconds;
    return run;
  };
  const int first_step = training.trainer().steps_done() + 1;
  const std::string snapshots = beside(o.out, ".history");
  const auto snapshot = [&](int step) {
    if (o.snapshot_every <= 0 || step % o.snapshot_every != 0) return;
    if (mkdir(snapshots.c_str(), 0755) != 0 && errno != EEXIST)
      throw mha::Error("--snapshot-every: cannot make the folder " + snapshots + ": " + std::strerror(errno));
    char name[32];
    std::snprintf(name, sizeof name, "/step-%05d.safetensors", step);
    const std::string path = snapshots + name;
    const std::vector<uint8_t> bytes = mha::write_model(training.trainer().weights(), recipe.config, mha::training_metadata(recipe, step));
    mha::move_all_into_place({{mha::write_partial_file(path, bytes), path}});
  };
  if (first_step == 1) snapshot(0);
  const int last_step = o.stop_at > 0 ? o.stop_at : recipe.steps;
  if (o.stop_at > 0 && first_step > last_step)
    throw mha::Error("--stop-at " + std::to_string(last_step) + ": the checkpoint is already at step " + std::to_string(first_step - 1));
  const bool terminal = isatty(fileno(stderr));
  const CatchInterrupt catching;
  const auto start = std::chrono::steady_clock::now();
  const auto seconds_since_start = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  // The last step's loss: a run resumed after its last step takes none, and reports the kept one.
  float loss = last_loss(csv);
  double logged = 0, checkpointed = 0;  // when the last line went into a log, and the last checkpoint
  int phase_step = 0;  // the first checked step where the induction score reached kPhaseChangeScore
  double phase_seconds = 0, checking = 0;
  for (int s = first_step; s <= last_step && !interrupted; ++s) {
    loss = training.step();
    csv += std::to_string(s) + "," + std::to_string(loss) + "\n";
    snapshot(s);
    if (o.phase_every > 0 && phase_step == 0 && s % o.phase_every == 0) {
      const double before = seconds_since_start();
      const double score = training.induction_score();
      checking += seconds_since_start() - before;
      if (score >= mha::kPhaseChangeScore) phase_step = s, phase_seconds = seconds_since_start() - checking;
    }
    if (terminal && (s % 10 == 0 || s == recipe.steps)) progress(s, first_step - 1, recipe.steps, loss, seconds_since_start(), true);
    if (!terminal && seconds_since_start() - logged >= 60) {
      logged = seconds_since_start();
      progress(s, first_step - 1, recipe.steps, loss, logged, false);
    }
    if (o.checkpoint_minutes > 0 && s < last_step && seconds_since_start() - checkpointed >= 60 * o.checkpoint_minutes) {
      write_checkpoint_file(training, checkpoint, so_far(before.seconds + seconds_since_start() - checking));
      checkpointed = seconds_since_start();
    }
  }
  const double seconds = before.seconds + seconds_since_start() - checking;
  if (terminal) std::fputc('\n', stderr);
  const int steps_done = training.trainer().steps_done();
  // A Ctrl-C from here until the model is written keeps the run's state (whole, or not at all), so
  // that hours of training are not lost to it.
  std::string kept;
  const auto keep_if_interrupted = [&](const std::vector<std::string>& partials = {}) {
    if (interrupted && kept.empty() && o.checkpoint_minutes > 0 && steps_done >= first_step) {
      write_checkpoint_file(training, checkpoint, so_far(seconds));
      kept = checkpoint;
    }
    stop_if_interrupted(steps_done, partials, kept);
  };
  keep_if_interrupted();
  if (steps_done < recipe.steps) {  // --stop-at
    write_checkpoint_file(training, checkpoint, so_far(seconds));
    std::printf("stopped at step %d of %d after %.1f s; %s holds the run: the same command with --resume goes on from it\n", steps_done,
                recipe.steps, seconds, checkpoint.c_str());
    return;
  }

  std::map<std::string, std::string> figures;
  const std::string excerpt =
      o.excerpt.empty() ? "models/corpus/" + recipe.corpus.corpus + ".heldout.txt" : o.excerpt == "none" ? "" : o.excerpt;
  const std::string summary = recipe.task == mha::TaskKind::corpus ? corpus_summary(training, excerpt, figures)
                              : induction                          ? induction_summary(training, o.eval_sequences)
                                                                   : recall_summary(training);
  keep_if_interrupted();
  const double rate = steps_done / seconds;  // a corpus model on one core: 0.3 steps/s, not "0"
  std::printf("trained %d steps in %.1f s (%.*f steps/s), final loss %.3f\n%s\n", steps_done, seconds, rate < 10 ? 2 : 0, rate,
              loss, summary.c_str());
  if (o.phase_every > 0) {
    std::printf("phase change (induction score ≥ %g, checked every %d steps): ", mha::kPhaseChangeScore, o.phase_every);
    if (phase_step) std::printf("step %d, %.1f s\n", phase_step, phase_seconds);
    else std::printf("not reached\n");
  }

  std::map<std::string, std::string> metadata = mha::training_metadata(training.recipe(), steps_done);
  metadata["command"] = before.command;  // the run's first command: --resume goes on with the same options
  if (!before.resumed_at.empty()) metadata["resumed_at"] = before.resumed_at;
  metadata["evaluation"] = summary;
  metadata.insert(figures.begin(), figures.end());
  const std::vector<uint8_t> bytes = mha::write_model(training.trainer().weights(), training.recipe().config, metadata);
  keep_if_interrupted();
  // Both files written beside their targets first, then both moved into place, all or none: a Ctrl-C
  // up to the last check leaves nothing; after it the two renames finish together.
  std::vector<std::string> partials = {mha::write_partial_file(o.out, bytes)};
  try {
    partials.push_back(mha::write_partial_file(csv_path, std::vector<uint8_t>(csv.begin(), csv.end())));
  } catch (...) {
    std::remove(partials[0].c_str());
    throw;
  }
  keep_if_interrupted(partials);
  mha::move_all_into_place({{partials[0], o.out}, {partials[1], csv_path}});
  std::remove(checkpoint.c_str());  // the run is whole: a later --resume must not go on from it
  std::printf("wrote %s and %s\n", o.out.c_str(), loss_csv_path(o.out).c_str());
}

}  // namespace

CLI::App* add_train_command(CLI::App& app, const std::string& command_line) {
  auto o = std::make_shared<TrainOptions>();
  CLI::App* cmd = app.add_subcommand("train", "train a small model on the induction or the recall task, or on real text (--task corpus), and write it");
  cmd->add_option("--task", o->task,
                  "induction, recall (predict the K ids before each position) or corpus (the next token of real text: "
                  "--corpus); each has its own recipe, listed at the end")
      ->check(CLI::IsMember(mha::task_names()));
  o->preset_option = cmd->add_option("--preset", o->preset, "attn-only or gpt2 (the corpus task: gpt2)")->check(CLI::IsMember(mha::preset_names(true)));
  cmd->add_option("--corpus", o->corpus, "the corpus task's text: " + mha::corpus_choices())
      ->check(CLI::IsMember(mha::corpus_names()));
  cmd->add_option("--corpus-dir", o->corpus_dir, "where npm run corpus wrote the corpus's vocabulary and splits");
  cmd->add_option("--excerpt", o->excerpt, "the held-out excerpt the file's figures are measured on (default "
                                            "models/corpus/CORPUS.heldout.txt; none: skip)");
  cmd->footer(recipes_footer());
  using R = mha::Recipe;
  recipe_option<int>(cmd, *o, "--layers", [](R& r) -> int& { return r.config.layers; }, model_row("layers"));
  recipe_option<int>(cmd, *o, "--heads", [](R& r) -> int& { return r.config.heads; }, model_row("heads"));
  recipe_option<int>(cmd, *o, "--kv-heads", [](R& r) -> int& { return r.config.kv_heads; }, model_row("kvHeads"));
  recipe_option<int>(cmd, *o, "--d-model", [](R& r) -> int& { return r.config.d_model; }, model_row("dModel"));
  o->vocab_option = recipe_option<int>(cmd, *o, "--vocab", [](R& r) -> int& { return r.config.vocab_size; }, model_row("vocabSize"),
                                      "vocabulary: id 0 is the start token, 1 … vocab−1 the random tokens (recall: 0 … vocab−1; "
                                      "corpus: the corpus's vocab most frequent tokens, the others <unk>)");
  recipe_option<int>(cmd, *o, "--steps", [](R& r) -> int& { return r.steps; }, recipe_row("steps"));
  recipe_option<int>(cmd, *o, "--batch", [](R& r) -> int& { return r.batch; }, recipe_row("batch"));
  recipe_option<float>(cmd, *o, "--lr", [](R& r) -> float& { return r.adam.lr; }, recipe_row("lr"));
  recipe_option<float>(cmd, *o, "--beta1", [](R& r) -> float& { return r.adam.beta1; }, recipe_row("beta1"));
  recipe_option<float>(cmd, *o, "--beta2", [](R& r) -> float& { return r.adam.beta2; }, recipe_row("beta2"));
  recipe_option<float>(cmd, *o, "--eps", [](R& r) -> float& { return r.adam.eps; }, recipe_row("eps"));
  recipe_option<float>(cmd, *o, "--weight-decay", [](R& r) -> float& { return r.adam.weight_decay; }, recipe_row("weightDecay"));
  recipe_option<float>(cmd, *o, "--init-std", [](R& r) -> float& { return r.init_std; }, recipe_row("initStd"));
  recipe_option<int>(cmd, *o, "--min-length", [](R& r) -> int& { return r.induction.min_length; }, recipe_row("minLength"));
  recipe_option<int>(cmd, *o, "--max-length", [](R& r) -> int& { return r.induction.max_length; }, recipe_row("maxLength"));
  recipe_option<int>(cmd, *o, "--recall", [](R& r) -> int& { return r.recall.readouts; }, recipe_row("recall"));
  recipe_option<int>(cmd, *o, "--length", [](R& r) -> int& { return r.recall.length; }, recipe_row("length"));
  recipe_option<int>(cmd, *o, "--window", [](R& r) -> int& { return r.corpus.length; }, recipe_row("window"));
  recipe_option<int>(cmd, *o, "--warmup", [](R& r) -> int& { return r.warmup; }, recipe_row("warmup"));
  recipe_option<float>(cmd, *o, "--final-lr", [](R& r) -> float& { return r.final_lr; }, recipe_row("finalLr"));
  recipe_option<uint64_t>(cmd, *o, "--seed", [](R& r) -> uint64_t& { return r.config.seed; }, model_row("seed"),
                          "seed of the initial weights and the data");
  cmd->add_option("--phase-every", o->phase_every, "check the induction score every N steps and report the phase change (0: no)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--eval-sequences", o->eval_sequences, "fresh sequences per L for the final check")
      ->check(CLI::Range(1, mha::kMaxEvalSequences));
  cmd->add_option("--checkpoint-minutes", o->checkpoint_minutes,
                  "write the run's whole state (weights, Adam's moments, step, data generator) to OUT.checkpoint.safetensors this "
                  "often (0: never); removed when the run ends")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--stop-at", o->stop_at, "stop after this step, writing the checkpoint (0: train to the end)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--snapshot-every", o->snapshot_every, "write the model at step 0 and every N steps into OUT.history/ (0: no)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--resume", o->resume, "go on from OUT.checkpoint.safetensors, bit for bit as if never stopped (the same options)");
  cmd->add_option("--out", o->out, "the model file (.safetensors); the loss curve goes beside it as .loss.csv")->required();
  cmd->callback([o, command_line] {
    o->command = command_line;
    train(*o);
  });
  return cmd;
}

}  // namespace mha_cli
