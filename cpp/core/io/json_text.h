// JSON text from a file (a safetensors header, a tokenizer's files), parsed with the file's name in
// every error: a syntax error and where, a number too large for a double (nlohmann's own message
// would be "[json.exception.out_of_range.406] …" without the file), and a key given twice in one
// object, which nlohmann would silently read as the last one.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "base/error_codes.h"

namespace mha {

// The codes a kind of file reports its JSON errors with: not_json's params are {file, byte},
// number_too_large's {file, number}, key_twice's {file, key}.
struct JsonErrorCodes {
  ErrorCode not_json, number_too_large, key_twice;
  const char* field;  // the errors' field: "" or "tokenizer"
};

nlohmann::json parse_json_text(const char* begin, const char* end, const std::string& file,
                               const JsonErrorCodes& codes);

}  // namespace mha
