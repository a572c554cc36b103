// mha: run multi-head attention and small transformers from the command line, stage by stage.
//   mha trace   ... --out TRACE.safetensors   every intermediate tensor, for any other library to check
//   mha shapes  ...                           each stage with its tensors and shapes, as a learner reads them
//   mha predict ...                           the next-token candidates at each position
//   mha heads   ... [--importance] [--json]   what each head does, measured, per layer (and what it costs to lose)
//   mha attribute ... [--json]                one logit split into the embedding, each head, each MLP, the biases
//   mha prune --model F [--json]              heads removed least important first: loss and accuracy after each
//   mha circuits --model F [--json]           copying and composition scores from the weights (--head: QK, OV tables)
//   mha patch --model F --clean … --corrupt … each head's and residual row's recovery of the clean answer
//   mha compare ACTUAL EXPECTED               every tensor of EXPECTED against ACTUAL, relative to its largest value
//   mha generate --model F --text ... --tokens N   continue a text, greedy or sampled, with the KV cache
//   mha train ... --out MODEL.safetensors     train a small model on the induction or the recall task
//   mha sweep --heads 1,2,4,...               the recall task at several head counts: why several heads
//   mha tokenize --tokenizer DIR --text ...   GPT-2's tokens and ids of a text
//   mha catalog                               the core's limits, defaults, recipes, metrics and error codes (JSON)
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <exception>
#include <string>

#include "catalog.h"
#include "io/compare.h"
#include "base/error.h"
#include "io/files.h"
#include "io/safetensors.h"
#include "io/trace_file.h"
#include "analysis/importance.h"
#include "attribute_command.h"
#include "circuits_command.h"
#include "generate_command.h"
#include "heads_report.h"
#include "predict_report.h"
#include "prune_command.h"
#include "run_options.h"
#include "shapes_report.h"
#include "sweep_command.h"
#include "tokenize_command.h"
#include "train_command.h"
#include "train/corpus_task.h"

namespace {

struct CompareOptions {
  std::string actual_path, expected_path;
  double tolerance = 1e-4;
};

// Prints one line per tensor of `expected`; true when all are within tolerance. A file with no float
// tensor to compare is an error, not a pass.
bool compare_files(const CompareOptions& o) {
  if (!(o.tolerance >= 0) || !std::isfinite(o.tolerance))  // also NaN, which every comparison would pass
    throw mha::Error("--tolerance must be a number 0 or more, got " + std::to_string(o.tolerance));
  const std::vector<uint8_t> actual_bytes = mha::read_file(o.actual_path);
  const std::vector<uint8_t> expected_bytes = mha::read_file(o.expected_path);
  const mha::SafetensorsFile actual(actual_bytes.data(), actual_bytes.size(), o.actual_path);
  const mha::SafetensorsFile expected(expected_bytes.data(), expected_bytes.size(), o.expected_path);
  bool all_ok = true;
  int compared = 0;
  for (const std::string& name : expected.names()) {
    const std::string& dtype = expected.entry(name).dtype;
    if (dtype != "F32" && dtype != "F16" && dtype != "BF16") continue;
    ++compared;
    if (!actual.has(name)) {
      std::printf("%-24s missing from %s\n", name.c_str(), o.actual_path.c_str());
      all_ok = false;
      continue;
    }
    const mha::Comparison c = mha::compare_tensors(actual.read_float(name), expected.read_float(name), o.tolerance);
    std::printf("%-24s %-16s relative error %.2e  %s%s\n", name.c_str(),
                mha::shape_to_string(expected.entry(name).shape).c_str(), c.relative_error, c.ok ? "ok" : "FAIL ",
                c.detail.c_str());
    all_ok = all_ok && c.ok;
  }
  if (compared == 0)
    throw mha::Error(o.expected_path + " has no F32, F16 or BF16 tensor to compare: nothing was checked");
  return all_ok;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"mha: multi-head attention, stage by stage"};
  app.require_subcommand(1);
  app.option_defaults()->always_capture_default();  // --help shows each default, read from the core
  mha_cli::RunOptions o;
  std::string out_path;
  int top = 5;
  int exit_code = 0;

  CLI::App* trace_cmd = app.add_subcommand("trace", "run and write every stage tensor to a safetensors file");
  mha_cli::add_run_options(*trace_cmd, o);
  trace_cmd->add_option("--out", out_path, "output .safetensors file")->required();
  trace_cmd->callback([&] {
    const mha_cli::Run r = mha_cli::run(o);
    const bool single = !mha::has_blocks(r.model.config().preset);
    const mha::AttentionWeights weights = single ? r.model.weights() : mha::AttentionWeights{};  // unpacked
    mha::write_file_atomically(out_path, mha::trace_to_safetensors(r.trace, single ? &weights : nullptr, r.model.config()));
    std::printf("wrote %zu tensors to %s\n", r.trace.entries().size(), out_path.c_str());
  });

  CLI::App* shapes_cmd = app.add_subcommand("shapes", "run and print each stage's tensors and shapes");
  mha_cli::add_run_options(*shapes_cmd, o);
  shapes_cmd->callback([&] {
    const mha_cli::Run r = mha_cli::run(o);
    std::fputs(mha_cli::shapes_report(r.trace, r.model.config(), o.text).c_str(), stdout);
  });

  CLI::App* predict_cmd = app.add_subcommand("predict", "print the next-token candidates at each position");
  mha_cli::add_run_options(*predict_cmd, o);
  predict_cmd->add_option("--top", top, "candidates per position")->check(CLI::Range(1, 100));
  predict_cmd->callback([&] {
    const mha_cli::Run r = mha_cli::run(o);
    std::fputs(mha_cli::predict_report(r.trace, top, r.model.tokenizer()).c_str(), stdout);
  });

  bool json = false, importance = false;
  int samples = 0;
  CLI::App* heads_cmd = app.add_subcommand("heads", "measure what each head does: entropy, previous-token, induction …");
  mha_cli::add_run_options(*heads_cmd, o);
  heads_cmd->add_flag("--json", json, "print JSON instead of a table");
  heads_cmd->add_flag("--importance", importance,
                      "add each head's importance, |dL/d gate| at gate 1 (Michel et al. 2019), L the mean next-token "
                      "cross-entropy over the given ids (with --heldout: over windows of that text, see --samples)");
  heads_cmd->add_option("--samples", samples, "with --importance: average over this many fresh sequences of the model's task instead "
                                              "(a model of real text: windows of its held-out excerpt); with --heldout, "
                                              "the first this many windows of that text (default 64, as mha prune)")
      ->check(CLI::Range(1, mha::kMaxImportanceSamples));
  std::string heldout;
  int windows = 0;
  heads_cmd->add_option("--heldout", heldout,
                        "measure on held-out text instead: a model trained on a corpus reads FILE (default: its "
                        "shipped excerpt, corpus/CORPUS.heldout.txt beside the model) in windows of its positions, and "
                        "each metric is the mean over the windows")
      ->expected(0, 1);
  heads_cmd->add_option("--windows", windows, "with --heldout: at most this many windows (0: all)")->check(CLI::NonNegativeNumber);
  heads_cmd->callback([&] {
    if (samples > 0 && !importance) throw mha::Error("--samples goes with --importance");
    if (heads_cmd->count("--heldout") > 0) {
      const mha::Model model = mha_cli::open_model(o);
      const std::vector<int32_t> ids = mha_cli::read_heldout(model, o.model_path, heldout);
      std::vector<mha::LayerAnalysis> layers = mha::analyse_heldout(model, ids, windows);
      // on the windows mha prune removes heads by (its first 64): the page shows the two side by side
      if (importance)
        mha::add_importance(layers, mha::head_importance(model, mha::heldout_samples(ids, model.config().max_positions,
                                                                                     samples > 0 ? samples : mha::kImportanceSamples)));
      if (json) std::printf("%s\n", mha::analysis_to_json(layers).dump(2).c_str());
      else std::fputs(mha_cli::heads_report(layers).c_str(), stdout);
      return;
    }
    const mha_cli::Run r = mha_cli::run(o);
    std::vector<mha::LayerAnalysis> layers = mha::analyse_trace(r.trace, r.model.config(), r.model.tokenizer());
    if (importance)
      mha::add_importance(layers, mha::head_importance(r.model, samples > 0 ? mha_cli::analysis_samples(r.model, o.model_path, samples, mha::kImportanceSeed)
                                                                             : std::vector<mha::TaskSample>{mha::next_token_sample(r.trace.ids, r.model.config().readouts)}));
    if (json) std::printf("%s\n", mha::analysis_to_json(layers).dump(2).c_str());
    else std::fputs(mha_cli::heads_report(layers).c_str(), stdout);
  });

  CompareOptions co;
  CLI::App* compare_cmd = app.add_subcommand("compare", "check every tensor of EXPECTED against ACTUAL");
  compare_cmd->add_option("actual", co.actual_path, "a trace, e.g. from mha trace")->required();
  compare_cmd->add_option("expected", co.expected_path, "the reference, e.g. from PyTorch")->required();
  compare_cmd->add_option("--tolerance", co.tolerance, "largest error allowed, relative to each tensor's largest value");
  compare_cmd->callback([&] { exit_code = compare_files(co) ? 0 : 1; });

  CLI::App* catalog_cmd = app.add_subcommand("catalog", "print the core's limits, defaults, recipes, head metrics and error codes as JSON");
  static bool compact = false, module = false;
  catalog_cmd->add_flag("--compact", compact, "on one line");
  catalog_cmd->add_flag("--module", module,
                        "as the WebAssembly module carries it: on one line, without errorCodes, whose sentences its "
                        "error table holds already (mha.js asks the module for them)");
  catalog_cmd->callback([] {
    nlohmann::json c = mha::catalog();
    if (module) c.erase("errorCodes");
    std::printf("%s\n", c.dump(compact || module ? -1 : 2).c_str());
  });

  std::string command_line = "mha";
  for (int i = 1; i < argc; ++i) command_line += std::string(" ") + argv[i];
  mha_cli::add_train_command(app, command_line);
  mha_cli::add_sweep_command(app);
  mha_cli::add_tokenize_command(app);
  mha_cli::add_attribute_command(app, o);
  mha_cli::add_prune_command(app);
  mha_cli::add_circuits_command(app);
  mha_cli::add_patch_command(app);
  mha_cli::add_generate_command(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {  // a bad option: said like every other error
    std::string message = e.what();
    for (char& c : message)
      if (c == '\n') c = ' ';
    std::fprintf(stderr, "mha: error: %s (mha %s--help lists the options)\n", message.c_str(),
                 app.get_subcommands().empty() ? "" : (app.get_subcommands().front()->get_name() + " ").c_str());
    return 1;
  } catch (const mha_cli::Interrupted& e) {
    std::fprintf(stderr, "mha: error: %s\n", e.what());
    return 130;  // 128 + SIGINT, as a shell reports a program Ctrl-C stopped
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mha: error: %s\n", e.what());
    return 1;
  }
  return exit_code;
}
