// The options table's rows (core/options.h) as the CLI's options: a command-line option that sets what
// a module option sets takes that row's line of help and its limits, so `mha train --beta2 1` is
// refused with the module's own sentence, and a limit changed in the table changes both.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "base/error.h"
#include "options.h"

namespace mha_cli {

// The row of `rows` declaring `key`, as JavaScript spells it.
template <class Target>
const mha::OptionSpec<Target>& option_row(const std::vector<mha::OptionSpec<Target>>& rows, const char* key) {
  for (const auto& row : rows)
    if (std::strcmp(row.key, key) == 0) return row;
  throw mha::Error(std::string("internal: no option row ") + key);
}

// The row's line of help, led by the task it belongs to where only one task's recipe reads it.
template <class Target>
std::string row_help(const mha::OptionSpec<Target>& row) {
  return row.task ? std::string(row.task) + ": " + row.help : std::string(row.help);
}

// A check of a number option against the row's kind and limits (check_option_number), in the module's
// sentence ("--beta2: the value must be at least 0 and below 1, got 1": CLI11 names the option);
// text that is no number is left to CLI11's own conversion, which refuses it.
template <class Target>
CLI::Validator row_check(const mha::OptionSpec<Target>& row) {
  const mha::OptionKind kind = row.kind;
  const double min = row.min, max = row.max;
  using K = mha::OptionKind;
  const std::string limits = kind == K::positive   ? "(0, " + mha::number_text(max) + "]"
                             : kind == K::fraction ? "[0, 1)"
                                                   : "[" + mha::number_text(min) + ", " + mha::number_text(max) + "]";
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        char* end = nullptr;
        const double value = std::strtod(text.c_str(), &end);
        if (text.empty() || *end != '\0') return "";
        try {
          mha::check_option_number(kind, min, max, value, "the value", "");
        } catch (const mha::Error& e) {
          return e.what();
        }
        return "";
      },
      "in " + limits);
}

}  // namespace mha_cli
