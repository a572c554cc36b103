// Everything the core declares that a caller shows or checks against, gathered from the tables that
// declare it into one JSON object: the limits, a Config's defaults, the model presets, the training
// recipes (induction, recall), the sweep's head counts and the phase-change score, the head metrics
// and label rules, and every error code with its English sentence, the stage table, generation's
// defaults, the published models' attention sizes (the KV cache calculator's) and every option the
// JavaScript API takes, with its type, limits and default (options.h). `mha catalog`
// prints it, the module hands it to JavaScript (mha.catalog; mha.stageTable is its stage table; the
// module's text leaves errorCodes to its error table: `mha catalog --module`), the
// page's bundle carries the copy the build reads from the module, and tests read it rather than
// repeating a value.
#pragma once

#include <nlohmann/json.hpp>

namespace mha {

nlohmann::json catalog();

}  // namespace mha
