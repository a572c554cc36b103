// A training run's whole state in one safetensors file: the weights, Adam's two moments, the step and
// the batch generator's state. A run stopped at step s and resumed from its checkpoint takes, bit for
// bit, the steps an unbroken run takes (tests/test_train.cpp), so a training longer than one sitting —
// the corpus models: hours on one core — can be split across several.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "train/recipe.h"

namespace mha {

// `extra` travels with the state in __metadata__ (the CLI keeps its loss curve and clock there); keys
// the checkpoint itself uses (format, step, rng, run) may not be among them.
std::vector<uint8_t> write_checkpoint(const Training& training, const std::map<std::string, std::string>& extra = {});

// Puts the state of `bytes` (a file named `name`, for messages) into `training`, and returns its
// __metadata__. mha::Error, leaving `training` untouched, when the file is not a checkpoint, is
// malformed, or was written by a run of another recipe (both recipes named).
std::map<std::string, std::string> restore_checkpoint(Training& training, const std::vector<uint8_t>& bytes,
                                                      const std::string& name);

}  // namespace mha
