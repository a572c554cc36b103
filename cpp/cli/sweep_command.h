// `mha sweep`: the head-count experiment. Trains the recall recipe (core/train/recipe.h) once per head
// count at the same d_model — the heads split it, so every model has the same parameters — and prints
// what each learnt: d_head, parameters, loss, accuracy per readout and their mean, time.
#pragma once

#include <CLI/CLI.hpp>

namespace mha_cli {

CLI::App* add_sweep_command(CLI::App& app);

}  // namespace mha_cli
