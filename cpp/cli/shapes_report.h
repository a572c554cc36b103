// `mha shapes`: every stage of every layer with its tensors, shapes and formulas, read off the
// trace and the stage table (stages.h), as a learner reads them.
#pragma once

#include <string>

#include "base/config.h"
#include "model/trace.h"

namespace mha_cli {

std::string shapes_report(const mha::Trace& trace, const mha::Config& config, const std::string& text);

}  // namespace mha_cli
