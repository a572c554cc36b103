// `mha heads`: what each head does, measured (core/head_metrics.h): a table per layer with every
// metric and the label, and the heads × heads similarity; or the same as JSON.
#pragma once

#include <string>
#include <vector>

#include "analysis/head_metrics.h"

namespace mha_cli {

std::string heads_report(const std::vector<mha::LayerAnalysis>& layers);

}  // namespace mha_cli
