// `mha train`: trains a small model on the induction task (core/induction_task.h) and writes it,
// with its loss curve as CSV beside it.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "base/error.h"

namespace mha_cli {

// Ctrl-C stopped the run before both files were in place; nothing was written. main exits with 130.
struct Interrupted : mha::Error {
  using mha::Error::Error;
};

// command_line: how the program was called, recorded in the model's __metadata__.
CLI::App* add_train_command(CLI::App& app, const std::string& command_line);

}  // namespace mha_cli
