// mha: run multi-head attention from the command line and write or print every stage.
//   mha trace  ... --out TRACE.safetensors   every intermediate tensor, for any other library to check
//   mha shapes ...                            each stage with its tensors and shapes, as a learner reads them
//   mha compare ACTUAL EXPECTED               every tensor of EXPECTED against ACTUAL, relative to its largest value
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <string>

#include "../core/compare.h"
#include "../core/error.h"
#include "../core/model.h"
#include "../core/safetensors.h"
#include "../core/trace_file.h"
#include "shapes_report.h"

namespace {

struct Options {
  std::string actual_path, expected_path;
  double tolerance = 1e-4;
  std::string text, input_path, weights_path, out_path, layout = "pytorch";
  int d_model = 512, heads = 8, kv_heads = 0, layer = 0, vocab_size = 8000;
  uint64_t seed = 1;
  bool causal = false, scalar = false;
  bool has_text = false;  // --text "" is a given, empty text: the tokenizer says so
};

void add_run_options(CLI::App& cmd, Options& o) {
  auto* text = cmd.add_option("--text", o.text, "text to tokenize and embed, e.g. \"我是秦始皇\"")
                   ->each([&o](const std::string&) { o.has_text = true; });
  auto* input = cmd.add_option("--input", o.input_path, "safetensors file with x as [T, d_model] or [1, T, d_model]");
  text->excludes(input);
  auto* weights = cmd.add_option("--weights", o.weights_path, "safetensors file with the layer's weights (default: random)");
  cmd.add_option("--layout", o.layout, "names in the weights file")->check(CLI::IsMember({"pytorch", "llama", "gpt2"}));
  cmd.add_option("--layer", o.layer, "which layer of the weights file to read")->check(CLI::NonNegativeNumber);
  cmd.add_option("--d-model", o.d_model, "model width (random weights only)")->excludes(weights);
  cmd.add_option("--heads", o.heads, "attention heads; d_model must be divisible by it");
  cmd.add_option("--kv-heads", o.kv_heads, "key/value heads (grouped-query); default: heads");
  cmd.add_option("--seed", o.seed, "seed of the random weights and embeddings");
  cmd.add_option("--vocab-size", o.vocab_size, "vocabulary size for token ids");
  cmd.add_flag("--causal", o.causal, "mask future positions");
  cmd.add_flag("--scalar", o.scalar, "use the plain scalar kernels instead of SIMD");
}

struct Run {
  mha::Model model;
  mha::Trace trace;
};

Run run(const Options& o) {
  if (!o.has_text && o.input_path.empty()) throw mha::Error("give --text \"...\" or --input X.safetensors");
  mha::Config config;
  config.d_model = o.d_model;
  config.heads = o.heads;
  config.kv_heads = o.kv_heads;
  config.causal = o.causal;
  config.seed = o.seed;
  config.vocab_size = o.vocab_size;

  mha::Model model = [&] {
    if (o.weights_path.empty()) return mha::Model(config);
    const std::vector<uint8_t> bytes = mha::read_file(o.weights_path);
    return mha::Model::from_safetensors(config, bytes.data(), bytes.size(), mha::parse_layout(o.layout), o.layer);
  }();
  const mha::KernelPath path = o.scalar ? mha::KernelPath::scalar : mha::KernelPath::simd;
  mha::Trace trace;
  if (o.has_text) {
    trace = model.run_text(o.text, path);
  } else {
    const std::vector<uint8_t> bytes = mha::read_file(o.input_path);
    const mha::SafetensorsFile file(bytes.data(), bytes.size());
    trace = model.run_input(file.read_float("x"), path);
  }
  return {std::move(model), std::move(trace)};  // the model is not copied: its weights can be large
}

// Prints one line per tensor of `expected`; true when all are within tolerance.
bool compare_files(const Options& o) {
  const std::vector<uint8_t> actual_bytes = mha::read_file(o.actual_path);
  const std::vector<uint8_t> expected_bytes = mha::read_file(o.expected_path);
  const mha::SafetensorsFile actual(actual_bytes.data(), actual_bytes.size());
  const mha::SafetensorsFile expected(expected_bytes.data(), expected_bytes.size());
  bool all_ok = true;
  for (const std::string& name : expected.names()) {
    const std::string& dtype = expected.entry(name).dtype;
    if (dtype != "F32" && dtype != "F16" && dtype != "BF16") continue;
    if (!actual.has(name)) {
      std::printf("%-18s missing from %s\n", name.c_str(), o.actual_path.c_str());
      all_ok = false;
      continue;
    }
    const mha::Comparison c = mha::compare_tensors(actual.read_float(name), expected.read_float(name), o.tolerance);
    std::printf("%-18s %-16s relative error %.2e  %s%s\n", name.c_str(),
                mha::shape_to_string(expected.entry(name).shape).c_str(), c.relative_error, c.ok ? "ok" : "FAIL ",
                c.detail.c_str());
    all_ok = all_ok && c.ok;
  }
  return all_ok;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"mha: multi-head attention, stage by stage"};
  app.require_subcommand(1);
  Options o;
  CLI::App* trace_cmd = app.add_subcommand("trace", "run and write every stage tensor to a safetensors file");
  add_run_options(*trace_cmd, o);
  trace_cmd->add_option("--out", o.out_path, "output .safetensors file")->required();
  CLI::App* shapes_cmd = app.add_subcommand("shapes", "run and print each stage's tensors and shapes");
  add_run_options(*shapes_cmd, o);
  CLI::App* compare_cmd = app.add_subcommand("compare", "check every tensor of EXPECTED against ACTUAL");
  compare_cmd->add_option("actual", o.actual_path, "a trace, e.g. from mha trace")->required();
  compare_cmd->add_option("expected", o.expected_path, "the reference, e.g. from PyTorch")->required();
  compare_cmd->add_option("--tolerance", o.tolerance, "largest error allowed, relative to each tensor's largest value");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }

  try {
    if (compare_cmd->parsed()) return compare_files(o) ? 0 : 1;
    Run r = run(o);
    if (trace_cmd->parsed()) {
      mha::write_file_atomically(o.out_path, mha::trace_to_safetensors(r.trace, r.model.weights(), r.model.config()));
      std::printf("wrote %zu tensors to %s\n", r.trace.entries().size(), o.out_path.c_str());
    } else {
      std::fputs(mha_cli::shapes_report(r.trace, r.model.config(), o.text).c_str(), stdout);
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mha: error: %s\n", e.what());
    return 1;
  }
}
