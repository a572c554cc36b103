#include "tokenize_command.h"

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "text/bpe_files.h"
#include "base/error.h"
#include "io/files.h"
#include "io/model_file.h"
#include "io/safetensors.h"
#include "text/vocab_tokenizer.h"

namespace mha_cli {

namespace {

struct TokenizeOptions {
  std::string tokenizer_dir, model_path, text, file;
  bool has_text = false;  // --text "" is a given, empty text: the tokenizer says so
  bool json = false;
};

// The tokenizer of a model file that carries its own vocabulary (vocab_tokenizer.h).
std::shared_ptr<const mha::VocabTokenizer> model_vocabulary(const std::string& path) {
  const std::vector<uint8_t> bytes = mha::read_file(path);
  const mha::SafetensorsFile file(bytes.data(), bytes.size(), path);
  const mha::Preset preset = mha::whole_model_preset(file, "");
  const mha::LoadedModel loaded = mha::read_model(file, preset, 0);
  if (!loaded.vocabulary)
    throw mha::Error(path + " carries no vocabulary of its own (a model trained on a corpus does); for GPT-2's files use --tokenizer");
  return loaded.vocabulary;
}

void tokenize(const TokenizeOptions& o) {
  if (!o.has_text && o.file.empty()) throw mha::Error("give --text \"...\" or --file F");
  if (o.tokenizer_dir.empty() == o.model_path.empty()) throw mha::Error("give --tokenizer DIR (GPT-2's files) or --model F (its own vocabulary)");
  const std::shared_ptr<const mha::VocabTokenizer> vocabulary = o.model_path.empty() ? nullptr : model_vocabulary(o.model_path);
  std::string text = o.text;
  if (!o.has_text) {
    // byte for byte (a final newline is a token too); a vocabulary reads a whole corpus split, GPT-2's
    // files no more than a text may hold
    const std::vector<uint8_t> bytes = mha::read_file(o.file, vocabulary ? mha::kMaxFileBytes : mha::kMaxTextBytes);
    text.assign(bytes.begin(), bytes.end());
  }
  mha::Tokenized out;
  if (vocabulary) {
    out = o.has_text ? vocabulary->tokenize(text) : vocabulary->tokenize_all(text);
    for (size_t i = 0; i < out.ids.size(); ++i) out.tokens[i] = vocabulary->token_text(out.ids[i]);  // <unk> spelled so
  } else {
    out = mha::load_bpe_tokenizer(o.tokenizer_dir)->tokenize(text);
  }
  if (o.json) {
    std::printf("%s\n", nlohmann::ordered_json{{"tokens", out.tokens}, {"ids", out.ids}}.dump().c_str());
    return;
  }
  // One line per token; the token as a JSON string, so spaces and newlines are visible.
  std::printf("%zu tokens\n", out.ids.size());
  for (std::size_t i = 0; i < out.ids.size(); ++i)
    std::printf("%5zu %6d  %s\n", i, out.ids[i], nlohmann::json(out.tokens[i]).dump().c_str());
}

}  // namespace

CLI::App* add_tokenize_command(CLI::App& app) {
  auto o = std::make_shared<TokenizeOptions>();
  CLI::App* cmd = app.add_subcommand("tokenize", "print the tokens and ids of a text: GPT-2's, or a corpus model's own");
  auto* dir = cmd->add_option("--tokenizer", o->tokenizer_dir, "directory with encoder.json + vocab.bpe (or vocab.json + merges.txt, or tokenizer.json)");
  auto* model = cmd->add_option("--model", o->model_path, "a model file with its own vocabulary (models/tang.safetensors): "
                                                          "its tokens, <unk> spelled so; --file may be a whole corpus split");
  dir->excludes(model);
  auto* text = cmd->add_option("--text", o->text, "the text")->each([o](const std::string&) { o->has_text = true; });
  auto* file = cmd->add_option("--file", o->file, "a UTF-8 file, read byte for byte");
  text->excludes(file);
  cmd->add_flag("--json", o->json, "print {\"tokens\": […], \"ids\": […]}");
  cmd->callback([o] { tokenize(*o); });
  return cmd;
}

}  // namespace mha_cli
