#include "text/utf8.h"

#include <cstdio>

#include "base/error.h"

namespace mha {

namespace {

[[noreturn]] void throw_bad_utf8(const std::string& what, std::size_t offset) {
  throw Error(ErrorCode::text_not_utf8, "text", {{"what", what}, {"offset", std::to_string(offset)}});
}

std::string hex(unsigned value, int digits) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%0*X", digits, value);
  return buf;
}

}  // namespace

CodePoint decode_utf8_at(const std::string& text, std::size_t offset) {
  const auto lead = static_cast<unsigned char>(text[offset]);
  if (lead < 0x80) return {lead, 1};
  if (lead < 0xC0) throw_bad_utf8("unexpected continuation byte 0x" + hex(lead, 2), offset);

  // 0xC0/0xC1 and 0xF5-0xF7 are decoded like any other lead so the checks below can name the
  // actual problem (overlong, above U+10FFFF); 0xF8 and up never start a sequence at all.
  if (lead >= 0xF8) throw_bad_utf8("invalid byte 0x" + hex(lead, 2), offset);
  const std::size_t size = lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
  char32_t value = lead & (0x7Fu >> size);  // the payload bits of the lead byte

  for (std::size_t i = 1; i < size; ++i) {
    if (offset + i >= text.size()) throw_bad_utf8("truncated sequence", offset);
    const auto byte = static_cast<unsigned char>(text[offset + i]);
    if ((byte & 0xC0u) != 0x80u) throw_bad_utf8("truncated sequence", offset);
    value = (value << 6) | (byte & 0x3Fu);
  }

  static const char32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};
  if (value < kSmallest[size]) throw_bad_utf8("overlong encoding", offset);
  if (value >= 0xD800 && value <= 0xDFFF) throw_bad_utf8("surrogate U+" + hex(value, 4), offset);
  if (value > 0x10FFFF) throw_bad_utf8("code point U+" + hex(value, 4) + " above U+10FFFF", offset);
  return {value, size};
}

void validate_utf8(const std::string& text) {
  std::size_t i = 0;
  while (i < text.size()) i += decode_utf8_at(text, i).size;
}

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

}  // namespace mha
