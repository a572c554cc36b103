#include "text/gpt2_pretokenize.h"

#include <cstddef>

#include "text/unicode_classes.h"
#include "text/utf8.h"

namespace mha {

namespace {

struct Char {
  char32_t cp;
  UnicodeClass cls;
  std::size_t offset;  // first byte in the text
};

// The length in characters of a contraction ('s 't 're 've 'm 'll 'd, lower case only) at i, or 0.
std::size_t contraction_at(const std::vector<Char>& chars, std::size_t i) {
  if (chars[i].cp != U'\'' || i + 1 >= chars.size()) return 0;
  const char32_t a = chars[i + 1].cp;
  if (a == U's' || a == U't' || a == U'm' || a == U'd') return 2;
  if (i + 2 >= chars.size()) return 0;
  const char32_t b = chars[i + 2].cp;
  if ((a == U'r' && b == U'e') || (a == U'v' && b == U'e') || (a == U'l' && b == U'l')) return 3;
  return 0;
}

// ` ?X+` for one class X (letter, number or other): an optional single space, then a run of X.
std::size_t run_at(const std::vector<Char>& chars, std::size_t i) {
  std::size_t j = chars[i].cp == U' ' ? i + 1 : i;
  if (j >= chars.size() || chars[j].cls == UnicodeClass::space) return 0;
  const UnicodeClass cls = chars[j].cls;
  while (j < chars.size() && chars[j].cls == cls) ++j;
  return j - i;
}

// `\s+(?!\S)|\s+`: a whitespace run, minus its last character when that one is followed by a
// non-space (so " word" keeps its space), unless the run is a single character.
std::size_t spaces_at(const std::vector<Char>& chars, std::size_t i) {
  std::size_t j = i;
  while (j < chars.size() && chars[j].cls == UnicodeClass::space) ++j;
  const std::size_t run = j - i;
  return j < chars.size() && run > 1 ? run - 1 : run;
}

}  // namespace

std::vector<std::string> gpt2_pretokenize(const std::string& text) {
  std::vector<Char> chars;
  for (std::size_t offset = 0; offset < text.size();) {
    const CodePoint cp = decode_utf8_at(text, offset);
    chars.push_back({cp.value, unicode_class(cp.value), offset});
    offset += cp.size;
  }

  std::vector<std::string> pieces;
  for (std::size_t i = 0; i < chars.size();) {
    std::size_t length = contraction_at(chars, i);
    if (length == 0) length = run_at(chars, i);
    if (length == 0) length = spaces_at(chars, i);  // chars[i] is a space: run_at matched nothing
    const std::size_t end = i + length < chars.size() ? chars[i + length].offset : text.size();
    pieces.push_back(text.substr(chars[i].offset, end - chars[i].offset));
    i += length;
  }
  return pieces;
}

}  // namespace mha
