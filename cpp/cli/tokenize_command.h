// `mha tokenize`: GPT-2's tokenizer on its own, text in, tokens and ids out, to see what a model reads.
#pragma once

#include <CLI/CLI.hpp>

namespace mha_cli {

CLI::App* add_tokenize_command(CLI::App& app);

}  // namespace mha_cli
