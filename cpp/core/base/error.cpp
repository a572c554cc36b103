#include "base/error.h"

namespace mha {

const std::vector<ErrorCodeSpec>& error_code_table() {
  static const std::vector<ErrorCodeSpec> table = {
#define MHA_ERROR_ROW(id, english) {ErrorCode::id, #id, english},
      MHA_ERROR_CODES(MHA_ERROR_ROW)
#undef MHA_ERROR_ROW
  };
  return table;
}

const ErrorCodeSpec& error_code_spec(ErrorCode code) { return error_code_table().at(static_cast<size_t>(code)); }

std::string fill_sentence(const std::string& sentence, const ErrorParams& params) {
  std::string out;
  for (size_t i = 0; i < sentence.size();) {
    const size_t close = sentence[i] == '{' ? sentence.find('}', i) : std::string::npos;
    const auto it = close == std::string::npos ? params.end() : params.find(sentence.substr(i + 1, close - i - 1));
    if (it == params.end()) {
      out += sentence[i++];
      continue;
    }
    out += it->second;
    i = close + 1;
  }
  return out;
}

namespace {
ErrorParams with_name(ErrorParams params, const std::string& field) {
  if (!field.empty() && !params.count("name")) params["name"] = field;
  return params;
}
}  // namespace

Error::Error(ErrorCode code, std::string field, ErrorParams params)
    : std::runtime_error(fill_sentence(error_code_spec(code).english, with_name(params, field))),
      field_(std::move(field)),
      code_(error_code_spec(code).id),
      params_(std::move(params)) {}

}  // namespace mha
