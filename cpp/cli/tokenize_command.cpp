#include "tokenize_command.h"

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "text/bpe_files.h"
#include "base/error.h"
#include "io/files.h"
#include "io/safetensors.h"

namespace mha_cli {

namespace {

struct TokenizeOptions {
  std::string tokenizer_dir, text, file;
  bool has_text = false;  // --text "" is a given, empty text: the tokenizer says so
  bool json = false;
};

void tokenize(const TokenizeOptions& o) {
  if (!o.has_text && o.file.empty()) throw mha::Error("give --text \"...\" or --file F");
  const auto tokenizer = mha::load_bpe_tokenizer(o.tokenizer_dir);
  std::string text = o.text;
  if (!o.has_text) {
    // byte for byte (a final newline is a token too), and no more than a text may hold
    const std::vector<uint8_t> bytes = mha::read_file(o.file, mha::kMaxTextBytes);
    text.assign(bytes.begin(), bytes.end());
  }
  const mha::Tokenized out = tokenizer->tokenize(text);
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
  CLI::App* cmd = app.add_subcommand("tokenize", "print the GPT-2 tokens and ids of a text");
  cmd->add_option("--tokenizer", o->tokenizer_dir, "directory with encoder.json + vocab.bpe (or vocab.json + merges.txt, or tokenizer.json)")
      ->required();
  auto* text = cmd->add_option("--text", o->text, "the text")->each([o](const std::string&) { o->has_text = true; });
  auto* file = cmd->add_option("--file", o->file, "a UTF-8 file, read byte for byte");
  text->excludes(file);
  cmd->add_flag("--json", o->json, "print {\"tokens\": […], \"ids\": […]}");
  cmd->callback([o] { tokenize(*o); });
  return cmd;
}

}  // namespace mha_cli
