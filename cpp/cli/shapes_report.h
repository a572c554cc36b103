// The text `mha shapes` prints: the seven stages, each tensor with its shape and formula.
#pragma once

#include <string>

#include "../core/config.h"
#include "../core/trace.h"

namespace mha_cli {

std::string shapes_report(const mha::Trace& trace, const mha::Config& config, const std::string& text);

}  // namespace mha_cli
