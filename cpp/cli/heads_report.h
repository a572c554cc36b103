// `mha heads`: what each head does, measured (core/head_metrics.h): a table per layer with every
// metric and the label, and the heads × heads similarity; or the same as JSON.
#pragma once

#include <string>
#include <vector>

#include "../core/config.h"
#include "../core/head_metrics.h"
#include "../core/trace.h"

namespace mha_cli {

// The analysis of every layer of a run (a single attention layer is one layer).
std::vector<mha::LayerAnalysis> analyse_trace(const mha::Trace& trace, const mha::Config& config);
std::string heads_report(const std::vector<mha::LayerAnalysis>& layers);

}  // namespace mha_cli
