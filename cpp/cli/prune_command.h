// `mha prune`: the model's heads removed one at a time, least important first (core/analysis/pruning.h),
// with the loss and the task's accuracy after each removal, on fresh sequences of the model's task.
#pragma once

#include <CLI/CLI.hpp>

namespace mha_cli {

CLI::App* add_prune_command(CLI::App& app);

}  // namespace mha_cli
