// The one exception type the core throws. Its message is a single line a learner can act on;
// the CLI prints it, the WASM bindings rethrow it to JavaScript unchanged. Errors about a setting
// or the text also say which one (field), what went wrong as a stable id (code) and the numbers
// in the message (params), so a page can place the message next to its control and say it in
// another language without reading the English.
#pragma once

#include <map>
#include <stdexcept>
#include <string>

namespace mha {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
  // field: "d_model", "heads", "kv_heads", "seed", "text", … ; code: e.g. "heads_not_divisor".
  Error(const std::string& message, std::string field, std::string code, std::map<std::string, std::string> params = {})
      : std::runtime_error(message), field_(std::move(field)), code_(std::move(code)), params_(std::move(params)) {}

  const std::string& field() const { return field_; }
  const std::string& code() const { return code_; }
  const std::map<std::string, std::string>& params() const { return params_; }

 private:
  std::string field_, code_;
  std::map<std::string, std::string> params_;
};

}  // namespace mha
