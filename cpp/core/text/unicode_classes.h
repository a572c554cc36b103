// The three Unicode classes GPT-2's pre-tokenisation pattern tells apart, from a generated range
// table (unicode_classes.cpp, made by scripts/make_unicode_classes.py).
#pragma once

namespace mha {

enum class UnicodeClass {
  other,   // punctuation, symbols, marks, controls, emoji: [^\s\p{L}\p{N}]
  letter,  // \p{L}: general categories Lu Ll Lt Lm Lo
  number,  // \p{N}: Nd Nl No
  space,   // JavaScript's \s, as the reference encoder (gpt-3-encoder) uses it
};

UnicodeClass unicode_class(char32_t cp);

}  // namespace mha
