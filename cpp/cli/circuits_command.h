// `mha circuits`: every head's copying score and every composition score from the weights, and with
// --text and --head one head's QK and OV tables over the text's tokens (core/analysis/circuits.h).
// `mha patch`: activation patching of a clean run into a corrupted one (core/analysis/patching.h).
#pragma once

#include <CLI/CLI.hpp>

namespace mha_cli {

void add_circuits_command(CLI::App& app);
void add_patch_command(CLI::App& app);

}  // namespace mha_cli
