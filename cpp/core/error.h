// The one exception type the core throws. Its message is a single line a learner can act on;
// the CLI prints it, the WASM bindings rethrow it to JavaScript unchanged.
#pragma once

#include <stdexcept>
#include <string>

namespace mha {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace mha
