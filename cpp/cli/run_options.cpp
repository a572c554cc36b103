#include "run_options.h"

#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include "text/bpe_files.h"
#include "text/vocab_tokenizer.h"
#include "train/corpus_task.h"
#include "base/error.h"
#include "io/config_json.h"
#include "io/model_builder.h"
#include "io/model_file.h"
#include "io/files.h"
#include "io/layouts.h"
#include "io/safetensors.h"

namespace mha_cli {

void add_run_options(CLI::App& cmd, RunOptions& o) {
  auto* text = cmd.add_option("--text", o.text, "text to tokenize and embed, e.g. \"我是秦始皇\"")
                   ->each([&o](const std::string&) { o.has_text = true; });
  auto* ids = cmd.add_option("--ids", o.ids, "token ids, e.g. 0,3,17,5: taken as given, nothing prepended");
  auto* input = cmd.add_option("--input", o.input_path, "safetensors file with x as [T, d_model] or [1, T, d_model]");
  text->excludes(input)->excludes(ids);
  ids->excludes(input);
  auto* weights = cmd.add_option("--weights", o.weights_path, "safetensors file with one attention layer (default: random)");
  auto* model = cmd.add_option("--model", o.model_path, "safetensors file with a whole model (gpt2 or attn-only layout)");
  model->excludes(weights)->excludes(input);
  cmd.add_option("--tokenizer", o.tokenizer_dir, "directory with GPT-2's tokenizer files (encoder.json + vocab.bpe, or "
                                                 "vocab.json + merges.txt, or tokenizer.json): --text through GPT-2's ids")
      ->excludes(ids)
      ->excludes(input);
  cmd.add_option("--config", o.config_path, "Hugging Face's config.json for --model (n_head, …); default: config.json beside it")
      ->needs(model);
  cmd.add_option("--layout", o.layout, "names in the file (default: guessed from them)")
      ->check(CLI::IsMember(mha::layout_names()));
  cmd.add_option("--layer", o.layer, "which layer of the --weights file to read")->check(CLI::NonNegativeNumber);
  cmd.add_option("--preset", o.preset, "random model: a single attention layer, or blocks")
      ->check(CLI::IsMember(mha::preset_names()))
      ->excludes(weights)
      ->excludes(model);
  cmd.add_option("--layers", o.config.layers, "blocks of a random attn-only or gpt2 model")->excludes(weights)->excludes(model);
  cmd.add_option("--d-model", o.config.d_model, "model width (random weights only)")->excludes(weights)->excludes(model);
  cmd.add_option("--heads", o.config.heads, "attention heads; d_model must be divisible by it (a --model file may say it)")
      ->each([&o](const std::string&) { o.heads_given = true; });
  cmd.add_option("--kv-heads", o.config.kv_heads, "key/value heads (grouped-query); default: heads");
  cmd.add_option("--rope-base", o.rope_base, "RoPE's base θ for --layout llama (default: the file's rope_theta, else 10000)")
      ->check(CLI::PositiveNumber);
  cmd.add_option("--seed", o.config.seed, "seed of the random weights and embeddings");
  cmd.add_option("--vocab-size", o.config.vocab_size, "vocabulary size for token ids (random weights)");
  cmd.add_option("--max-positions", o.config.max_positions, "positions of a random attn-only or gpt2 model");
  cmd.add_flag("--causal", o.config.causal, "mask future positions (models with blocks always do)");
  cmd.add_flag("--scalar", o.scalar, "use the plain scalar kernels instead of SIMD");
  cmd.add_option("--ablate", o.ablate, "switch heads off, layer.head: e.g. 1.0,1.3 (their head_out is zero)");
}

std::vector<int32_t> parse_ids(const std::string& list) {
  std::vector<int32_t> ids;
  std::stringstream parts(list);
  std::string part;
  while (std::getline(parts, part, ',')) {
    // one whole number, spaces around it allowed: "1 2" and "1-2" are not an id
    const size_t first = part.find_first_not_of(' '), last = part.find_last_not_of(' ');
    const std::string number = first == std::string::npos ? "" : part.substr(first, last - first + 1);
    const size_t digits = number.empty() || number[0] != '-' ? 0 : 1;
    if (number.size() <= digits || number.size() > digits + 10 ||
        number.find_first_not_of("0123456789", digits) != std::string::npos || std::stoll(number) < INT32_MIN ||
        std::stoll(number) > INT32_MAX)
      throw mha::Error("--ids takes whole numbers separated by commas, e.g. 0,3,17; got '" + mha::printable(part, 40) +
                       "'");
    ids.push_back(static_cast<int32_t>(std::stoll(number)));
  }
  if (ids.empty()) throw mha::Error("--ids is empty: give at least one token id");
  return ids;
}

mha::HeadGates parse_switched_off(const std::string& list, const mha::Config& c) {
  mha::HeadGates gates;
  if (list.empty()) return gates;
  gates.assign(static_cast<size_t>(c.layers), std::vector<float>(static_cast<size_t>(c.heads), 1.0f));
  std::stringstream parts(list);
  std::string part;
  while (std::getline(parts, part, ',')) {
    int layer = -1, head = -1;
    char dot = 0, extra = 0;
    std::istringstream in(part);
    if (!(in >> layer >> dot >> head) || dot != '.' || (in >> extra))
      throw mha::Error("--ablate takes layer.head pairs separated by commas, e.g. 1.0,1.3; got '" + part + "'");
    if (layer < 0 || layer >= c.layers || head < 0 || head >= c.heads) throw mha::no_such_head(layer, head, c);
    gates[layer][head] = 0.0f;
  }
  return gates;
}

namespace {

// --config, else Hugging Face's config.json when it sits beside --model, else none.
std::optional<mha::ModelConfigFile> config_file_for(const RunOptions& o) {
  std::string path = o.config_path;
  if (path.empty()) {
    const size_t slash = o.model_path.find_last_of('/');
    path = (slash == std::string::npos ? std::string() : o.model_path.substr(0, slash + 1)) + "config.json";
    if (!std::ifstream(path).good()) return std::nullopt;
  }
  const std::vector<uint8_t> bytes = mha::read_file(path);
  return mha::parse_config_json(std::string(bytes.begin(), bytes.end()), path);
}

}  // namespace

mha::Model load_model(const RunOptions& o) {
  if (o.rope_base > 0 && (o.weights_path.empty() || o.layout.empty() || !mha::layout_spec(mha::parse_layout(o.layout)).rope))
    throw mha::Error("--rope-base goes with --weights and --layout llama: only Llama's layers turn q and k by position");
  mha::Config config = o.config;
  config.rope_base = o.rope_base;
  config.preset = mha::parse_preset(o.preset.c_str());
  config.causal = config.causal || mha::has_blocks(config.preset);
  if (o.heads_given && (config.heads < 1 || config.heads > mha::kMaxHeads))  // 0 is not "the file's"
    throw mha::Error(mha::ErrorCode::out_of_range, "heads",
                     {{"min", "1"}, {"max", std::to_string(mha::kMaxHeads)}, {"value", std::to_string(config.heads)}});
  if (!o.model_path.empty()) {
    const std::vector<uint8_t> bytes = mha::read_file(o.model_path);
    const std::string layout =
        o.layout.empty() ? mha::guess_layout(mha::SafetensorsFile(bytes.data(), bytes.size(), o.model_path)) : o.layout;
    const mha::WeightLayout parsed = mha::parse_layout(layout);
    if (!mha::layout_spec(parsed).whole_model)
      throw mha::Error(o.model_path + " holds one " + layout +
                       " attention layer, not a whole model: open it with --weights");
    const std::optional<mha::ModelConfigFile> hf = config_file_for(o);
    mha::Model model = mha::Model::from_model_file(bytes.data(), bytes.size(), parsed,
                                                   o.heads_given ? config.heads : 0, o.model_path, hf ? &*hf : nullptr);
    if (model.facts().heads_from == mha::heads_source_name(mha::HeadsSource::gpt2_d_head))
      std::cerr << "mha: note: " << o.model_path << " does not say its heads: " << model.config().heads << " = d_model "
                << model.config().d_model << " / " << mha::kGpt2DHead
                << ", as in every GPT-2 size (--heads or its config.json says otherwise)\n";
    return model;
  }
  if (o.weights_path.empty()) return mha::Model(config);
  const std::vector<uint8_t> bytes = mha::read_file(o.weights_path);
  const std::string layout = o.layout.empty() ? "pytorch" : o.layout;
  return mha::Model::from_safetensors(config, bytes.data(), bytes.size(), mha::parse_layout(layout), o.layer,
                                      o.weights_path);
}

namespace {
// The shipped excerpt of a model's corpus: corpus/{corpus}.heldout.txt beside the model file.
std::string heldout_path(const mha::VocabTokenizer& vocabulary, const std::string& model_path) {
  const size_t slash = model_path.find_last_of('/');
  return (slash == std::string::npos ? std::string() : model_path.substr(0, slash + 1)) + "corpus/" +
         vocabulary.vocabulary().corpus + ".heldout.txt";
}
}  // namespace

std::vector<int32_t> read_heldout(const mha::Model& model, const std::string& model_path, const std::string& file) {
  const auto* vocabulary = dynamic_cast<const mha::VocabTokenizer*>(model.tokenizer());
  if (!vocabulary)
    throw mha::Error("held-out text is read with the model's own vocabulary: give a model trained on a corpus "
                     "(models/tang.safetensors, models/brown.safetensors)");
  const std::string path = file.empty() ? heldout_path(*vocabulary, model_path) : file;
  const std::vector<uint8_t> bytes = mha::read_file(path);
  return vocabulary->tokenize_all(std::string(bytes.begin(), bytes.end())).ids;
}

std::vector<mha::TaskSample> analysis_samples(const mha::Model& model, const std::string& model_path, int n, uint64_t seed,
                                              std::string* said) {
  const auto* vocabulary = dynamic_cast<const mha::VocabTokenizer*>(model.tokenizer());
  if (!vocabulary) {
    if (said) *said = std::to_string(n) + (n == 1 ? " sequence" : " sequences") + " of its task, seed " + std::to_string(seed);
    return mha::task_samples(model.config(), n, seed);
  }
  std::vector<mha::TaskSample> samples =
      mha::heldout_samples(read_heldout(model, model_path, ""), model.config().max_positions, n);
  if (said)
    *said = std::to_string(samples.size()) + (samples.size() == 1 ? " window" : " windows") + " of held-out text (" +
            heldout_path(*vocabulary, model_path) + ")";
  return samples;
}

mha::Model open_model(const RunOptions& o) {
  mha::Model model = load_model(o);
  if (!o.tokenizer_dir.empty()) model.set_tokenizer(mha::load_bpe_tokenizer(o.tokenizer_dir));
  return model;
}

Run run(const RunOptions& o) {
  if (!o.has_text && o.ids.empty() && o.input_path.empty())
    throw mha::Error("give --text \"...\", --ids 0,3,17 or --input X.safetensors");
  mha::Model model = open_model(o);
  const mha::HeadGates off = parse_switched_off(o.ablate, model.config());
  const mha::KernelPath path = o.scalar ? mha::KernelPath::scalar : mha::KernelPath::simd;
  mha::Trace trace;
  if (o.has_text) {
    trace = model.run_text(o.text, path, off);
  } else if (!o.ids.empty()) {
    trace = model.run_ids(parse_ids(o.ids), path, off);
  } else {
    if (!off.empty()) throw mha::Error("--ablate goes with --text or --ids");
    const std::vector<uint8_t> bytes = mha::read_file(o.input_path);
    const mha::SafetensorsFile file(bytes.data(), bytes.size(), o.input_path);
    trace = model.run_input(file.read_float("x"), path);
  }
  return {std::move(model), std::move(trace)};  // the model is not copied: its weights can be large
}

}  // namespace mha_cli
