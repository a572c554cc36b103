// `mha attribute`: the logit of one token at one position split into what wrote it: the embedding's
// direct path, each head, each MLP and the biases (core/analysis/attribution.h), ranked, or as JSON.
#pragma once

#include <CLI/CLI.hpp>

#include "run_options.h"

namespace mha_cli {

// o: the options every command that runs a model shares (filled by this command's parser).
CLI::App* add_attribute_command(CLI::App& app, RunOptions& o);

}  // namespace mha_cli
