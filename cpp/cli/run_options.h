// What every command that runs a model shares: the options that choose a model and an input, and
// the run itself.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "model/model.h"
#include "train/task_samples.h"

namespace mha_cli {

struct RunOptions {
  std::string text, ids, input_path, weights_path, model_path, layout, ablate;
  std::string tokenizer_dir;  // GPT-2's tokenizer files, for --text on a gpt2 --model
  std::string config_path;    // --config: Hugging Face's config.json (default: the one beside --model, if any)
  // A random model's settings: the core's defaults (config.h) until an option sets one.
  mha::Config config;
  std::string preset = mha::preset_name(config.preset);
  int layer = 0;
  double rope_base = 0;  // --rope-base: 0 = the --weights file's rope_theta, else kDefaultRopeBase (llama only)
  bool scalar = false;
  bool has_text = false;   // --text "" is a given, empty text: the tokenizer says so
  bool heads_given = false;
};

void add_run_options(CLI::App& cmd, RunOptions& o);

struct Run {
  mha::Model model;
  mha::Trace trace;
};

// The model the options describe (random, --weights or --model), with --tokenizer's tokenizer when given.
mha::Model open_model(const RunOptions& o);

// That model and one run of it on --text, --ids or --input. Throws mha::Error with a one-line reason.
Run run(const RunOptions& o);
// The model alone.
mha::Model load_model(const RunOptions& o);

// The ids of held-out text for a model with its own vocabulary (vocab_tokenizer.h): `file`, or when "" its
// corpus's shipped excerpt, corpus/{corpus}.heldout.txt beside the model file; read whole, any size.
std::vector<int32_t> read_heldout(const mha::Model& model, const std::string& model_path, const std::string& file);

// The sequences head importance and pruning measure on (importance.h, pruning.h): for a model with its
// own vocabulary, n windows of its held-out excerpt (a model of real text has no task to draw from: the
// seed is not read); for the others, n fresh sequences of the model's task from `seed`. `said` gets
// what they are, in words ("64 windows of held-out text (models/corpus/brown.heldout.txt)").
std::vector<mha::TaskSample> analysis_samples(const mha::Model& model, const std::string& model_path, int n, uint64_t seed,
                                              std::string* said = nullptr);

// "1.0,1.3" -> the gates of heads 1.0 and 1.3 at 0, every other head's at 1 (empty list: none);
// an error names a head the model does not have.
mha::HeadGates parse_switched_off(const std::string& list, const mha::Config& config);
// "3,17,5" -> {3, 17, 5}.
std::vector<int32_t> parse_ids(const std::string& list);

}  // namespace mha_cli
