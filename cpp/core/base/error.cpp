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

std::string or_list(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i == 0 ? "" : i + 1 == items.size() ? " or " : ", ") + items[i];
  return out;
}

std::string printable(const std::string& text, size_t max_bytes) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  size_t i = 0;
  while (i < text.size() && i < max_bytes) {
    const auto c = static_cast<unsigned char>(text[i]);
    // the length of the character a lead byte starts, 0 for a byte that starts none
    const size_t length = c < 0x80                 ? 1
                          : c >= 0xC2 && c <= 0xDF ? 2
                          : c >= 0xE0 && c <= 0xEF ? 3
                          : c >= 0xF0 && c <= 0xF4 ? 4
                                                   : 0;
    bool whole = length > 0 && i + length <= text.size();
    for (size_t k = 1; whole && k < length; ++k) whole = (static_cast<unsigned char>(text[i + k]) & 0xC0) == 0x80;
    if (!whole || c < 0x20 || c == 0x7F) {
      out += std::string("\\x") + kHex[c >> 4] + kHex[c & 15];
      ++i;
    } else {
      out.append(text, i, length);
      i += length;
    }
  }
  return i < text.size() ? out + "…" : out;
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
