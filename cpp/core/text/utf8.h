// Strict UTF-8 (Unicode Table 3-7), shared by the tokenizers: text is shown back to the learner
// token by token, so a malformed or non-shortest form is refused rather than passed through.
#pragma once

#include <cstddef>
#include <string>

namespace mha {

struct CodePoint {
  char32_t value;
  std::size_t size;  // bytes it occupies in the text
};

// The code point starting at `offset`; throws mha::Error (field "text", code "text_not_utf8")
// naming that offset if it is malformed.
CodePoint decode_utf8_at(const std::string& text, std::size_t offset);
void validate_utf8(const std::string& text);  // the same error for the first bad sequence
void append_utf8(std::string& out, char32_t cp);  // cp must be a valid scalar value

}  // namespace mha
