// The one exception type the core throws. Its message is a single line a learner can act on;
// the CLI prints it, the WASM bindings rethrow it to JavaScript unchanged. An error a learner can
// meet is declared in error_codes.h: it carries its code (a stable id), the setting it is about
// (field) and the values in its sentence (params), so a page can place the message next to its
// control and say it in another language without reading the English.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/error_codes.h"

namespace mha {

using ErrorParams = std::map<std::string, std::string>;

class Error : public std::runtime_error {
 public:
  // An error without a code: internal checks and messages no learner acts on.
  explicit Error(const std::string& message) : std::runtime_error(message) {}
  // error_codes.h's sentence for `code`, its {names} filled from params (and {name} from field).
  // field: "d_model", "heads", "kv_heads", "seed", "text", "tokenizer", … or "" when it is about no setting.
  Error(ErrorCode code, std::string field, ErrorParams params = {});

  const std::string& field() const { return field_; }
  const std::string& code() const { return code_; }  // "" without a code
  const ErrorParams& params() const { return params_; }

 private:
  std::string field_, code_;
  ErrorParams params_;
};

// `sentence` with each {name} replaced by params' value (a name params lack stays as it is).
std::string fill_sentence(const std::string& sentence, const ErrorParams& params);

// Text from a file (a tensor's name, a token, a line) as a message can hold it: control characters and
// bytes that are not UTF-8 written \xNN, so the message stays one line, and cut after about
// `max_bytes` at a whole character, marked "…".
std::string printable(const std::string& text, size_t max_bytes = 80);
// "a, b or c": the choices an error or a help text names.
std::string or_list(const std::vector<std::string>& items);

}  // namespace mha
