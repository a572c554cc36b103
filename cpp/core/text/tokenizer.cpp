#include "text/tokenizer.h"

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "base/config.h"
#include "base/error.h"
#include "text/utf8.h"

namespace mha {

namespace {

struct Range {
  char32_t first;
  char32_t last;
};

template <std::size_t N>
bool in_any(char32_t cp, const Range (&ranges)[N]) {
  for (const Range& r : ranges)
    if (cp >= r.first && cp <= r.last) return true;
  return false;
}

// ---------------------------------------------------------------------------------------------
// Character classes. Hand-written ranges instead of full Unicode properties: enough for the
// scripts a learner is likely to type, and small enough to read in one sitting.

enum class CharClass {
  Space,              // separates tokens, dropped
  Word,               // letters, digits, underscore: runs of them form one token
  Ideograph,          // CJK ideographs, kana, Hangul syllables: one token each
  Punct,              // punctuation, symbols, control characters: one token each
  Emoji,              // one token each, plus whatever cluster characters follow
  RegionalIndicator,  // two in a row spell one flag
  SkinTone,           // modifies the emoji before it; on its own it is an emoji
  Joiner,             // U+200D: glues the next emoji onto the current token
  Extend,             // combining marks, variation selectors, tags: stay with the token before
};

constexpr Range kSpace[] = {{0x09, 0x0D},     {0x20, 0x20},     {0xA0, 0xA0},     {0x1680, 0x1680}, {0x2000, 0x200A},
                            {0x2028, 0x2029}, {0x202F, 0x202F}, {0x205F, 0x205F}, {0x3000, 0x3000}};

// U+200C (zero-width non-joiner) sits inside words in Persian and Indic text, so it must not split them.
constexpr Range kExtend[] = {{0x0300, 0x036F},   {0x1AB0, 0x1AFF},  {0x1DC0, 0x1DFF}, {0x200C, 0x200C},
                             {0x20D0, 0x20FF},   {0x3099, 0x309A},  {0xFE00, 0xFE0F}, {0xFE20, 0xFE2F},
                             {0xE0020, 0xE007F}, {0xE0100, 0xE01EF}};

constexpr Range kEmoji[] = {{0x2600, 0x27BF}, {0x2B00, 0x2BFF}, {0x1F000, 0x1FAFF}};

constexpr Range kIdeograph[] = {{0x3040, 0x30FF}, {0x31F0, 0x31FF}, {0x3400, 0x4DBF},  {0x4E00, 0x9FFF},
                                {0xAC00, 0xD7AF}, {0xF900, 0xFAFF}, {0x20000, 0x2FA1F}};

// Besides punctuation proper: C1 controls (so an invisible byte never glues two words together)
// and the symbol blocks (currency, arrows, maths, box drawing...) so that "x≠y" or "€5" split like "x=y".
constexpr Range kPunct[] = {{0x80, 0x9F},     {0xA1, 0xBF},     {0xD7, 0xD7},     {0xF7, 0xF7},     {0x2000, 0x206F},
                            {0x20A0, 0x20CF}, {0x2190, 0x25FF}, {0x27C0, 0x2AFF}, {0x3000, 0x303F}, {0xFF00, 0xFF0F},
                            {0xFF1A, 0xFF20}, {0xFF3B, 0xFF40}, {0xFF5B, 0xFF65}, {0xFFE0, 0xFFEE}};

// Order matters: the tables overlap (U+200D and the spaces lie inside General Punctuation,
// skin tones and regional indicators inside the emoji block).
CharClass classify(char32_t cp) {
  if (in_any(cp, kSpace)) return CharClass::Space;
  if (cp < 0x80) {
    const bool alnum = (cp >= '0' && cp <= '9') || (cp >= 'A' && cp <= 'Z') || (cp >= 'a' && cp <= 'z');
    return alnum || cp == '_' ? CharClass::Word : CharClass::Punct;  // includes C0 controls and DEL
  }
  if (cp == 0x200D) return CharClass::Joiner;
  if (in_any(cp, kExtend)) return CharClass::Extend;
  if (cp >= 0x1F1E6 && cp <= 0x1F1FF) return CharClass::RegionalIndicator;
  if (cp >= 0x1F3FB && cp <= 0x1F3FF) return CharClass::SkinTone;
  if (in_any(cp, kEmoji)) return CharClass::Emoji;
  if (in_any(cp, kIdeograph)) return CharClass::Ideograph;
  if (in_any(cp, kPunct)) return CharClass::Punct;
  return CharClass::Word;
}

bool is_emoji_like(CharClass c) {
  return c == CharClass::Emoji || c == CharClass::RegionalIndicator || c == CharClass::SkinTone;
}

// ---------------------------------------------------------------------------------------------
// Grouping. Every token is one contiguous byte range of the text, so it is built by remembering
// where it started and cutting when something new begins.

// What the token being built will still accept besides cluster characters.
enum class Open {
  None,   // no token in progress
  Word,   // more word characters
  Emoji,  // a skin-tone modifier
  Other,  // nothing
};

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> tokens;
  std::size_t start = 0;
  Open open = Open::None;
  bool after_joiner = false;  // the token ends in U+200D
  bool lone_flag = false;     // the token is a single regional indicator, waiting for its pair

  auto close = [&](std::size_t end) {
    if (open != Open::None) tokens.push_back(text.substr(start, end - start));
    open = Open::None;
  };

  for (std::size_t i = 0; i < text.size();) {
    const CodePoint cp = decode_utf8_at(text, i);
    const CharClass c = classify(cp.value);

    if (c == CharClass::Space) {
      close(i);
    } else {
      const bool joins = open != Open::None &&
                         ((c == CharClass::Word && open == Open::Word) || c == CharClass::Extend ||
                          c == CharClass::Joiner || (c == CharClass::SkinTone && open == Open::Emoji) ||
                          (is_emoji_like(c) && after_joiner) || (c == CharClass::RegionalIndicator && lone_flag));
      if (!joins) {
        close(i);
        start = i;
        // A mark with nothing before it to attach to still becomes a token: no text is ever lost.
        open = c == CharClass::Word ? Open::Word : Open::Other;
      }
      if (is_emoji_like(c)) open = Open::Emoji;
      lone_flag = !joins && c == CharClass::RegionalIndicator;
    }
    after_joiner = c == CharClass::Joiner;
    i += cp.size;
  }
  close(text.size());
  return tokens;
}

// text + token when that reads back as text's pieces and then token, else with a space between (two
// words would run together).
std::string join_pieces(const std::string& text, const std::string& token) {
  std::vector<std::string> pieces = split(text);
  pieces.push_back(token);
  return split(text + token) == pieces ? text + token : text + " " + token;
}

}  // namespace

std::string CharWordTokenizer::join(const std::string& text, const std::string& token) const {
  return join_pieces(text, token);
}

std::string FirstAppearanceTokenizer::join(const std::string& text, const std::string& token) const {
  return join_pieces(text, token);
}

TokenTexts::TokenTexts(const std::vector<std::string>& tokens, const std::vector<int32_t>& ids, const Tokenizer* tokenizer,
                       std::string text)
    : tokenizer_(tokenizer), text_(std::move(text)) {
  for (size_t i = 0; i < ids.size() && i < tokens.size(); ++i)
    if (tokens[i] != std::to_string(ids[i])) known_.emplace_back(ids[i], tokens[i]);  // run_ids names tokens by their id
}

std::string TokenTexts::name(int32_t id) const {
  for (const auto& [known, text] : known_)
    if (known == id) return text;
  const std::string vocabulary = tokenizer_ ? tokenizer_->token_text(id) : std::string();
  return vocabulary.empty() ? "#" + std::to_string(id) : vocabulary;
}

std::string TokenTexts::add(int32_t id) {
  std::string token = name(id);
  known_.emplace_back(id, token);
  text_ = tokenizer_ ? tokenizer_->join(text_, token) : text_ + token;
  return token;
}

void check_text(const std::string& text) {
  // UTF-8 first, so a broken paste is reported as such whatever its length.
  validate_utf8(text);
  if (text.size() > static_cast<std::size_t>(kMaxTextBytes))
    throw Error(ErrorCode::text_too_long, "text", {{"bytes", std::to_string(text.size())}, {"max", std::to_string(kMaxTextBytes)}});
}

void check_token_count(std::size_t tokens) {
  if (tokens == 0) throw Error(ErrorCode::text_empty, "text");
  if (tokens > static_cast<std::size_t>(kMaxTextTokens))
    throw Error(ErrorCode::text_too_many_tokens, "text", {{"tokens", std::to_string(tokens)}, {"max", std::to_string(kMaxTextTokens)}});
}

CharWordTokenizer::CharWordTokenizer(int vocab_size) : vocab_size_(vocab_size) {
  if (vocab_size < 1) throw Error("vocab_size must be at least 1, got " + std::to_string(vocab_size));
}

Tokenized CharWordTokenizer::tokenize(const std::string& text) const {
  check_text(text);
  Tokenized out;
  out.tokens = split(text);
  check_token_count(out.tokens.size());

  out.ids.reserve(out.tokens.size());
  for (const std::string& token : out.tokens) out.ids.push_back(hashed_token_id(token, vocab_size_));
  return out;
}

int32_t hashed_token_id(const std::string& token, int vocab_size) {
  if (vocab_size < 1) throw Error("vocab_size must be at least 1, got " + std::to_string(vocab_size));
  // FNV-1a is defined on bytes with fixed constants, so ids match across compilers, platforms and WASM.
  uint64_t hash = 14695981039346656037ull;
  for (const char ch : token) {
    hash ^= static_cast<unsigned char>(ch);
    hash *= 1099511628211ull;
  }
  return static_cast<int32_t>(hash % static_cast<uint64_t>(vocab_size));
}

FirstAppearanceTokenizer::FirstAppearanceTokenizer(int vocab_size) : vocab_size_(vocab_size) {
  if (vocab_size < 2) throw Error("vocab_size must be at least 2 (the start token and one more), got " + std::to_string(vocab_size));
}

Tokenized FirstAppearanceTokenizer::tokenize(const std::string& text) const {
  Tokenized pieces = CharWordTokenizer(vocab_size_).tokenize(text);
  Tokenized out;
  out.tokens.push_back("<s>");
  out.ids.push_back(0);
  std::vector<std::string> seen;  // seen[i] has id i + 1
  for (std::string& piece : pieces.tokens) {
    size_t index = static_cast<size_t>(std::find(seen.begin(), seen.end(), piece) - seen.begin());
    if (index == seen.size()) {
      if (static_cast<int>(seen.size()) + 1 >= vocab_size_)
        throw Error(ErrorCode::text_too_many_different, "text",
                    {{"max", std::to_string(vocab_size_ - 1)}, {"vocab", std::to_string(vocab_size_)}});
      seen.push_back(piece);
    }
    out.ids.push_back(static_cast<int32_t>(index + 1));
    out.tokens.push_back(std::move(piece));
  }
  return out;
}

}  // namespace mha
