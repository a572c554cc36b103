// `mha predict`: the next-token candidates the model gives at each position, with probabilities,
// and whether its first choice is the token that actually comes next.
#pragma once

#include <string>

#include "../core/trace.h"

namespace mha_cli {

std::string predict_report(const mha::Trace& trace, int top);

}  // namespace mha_cli
