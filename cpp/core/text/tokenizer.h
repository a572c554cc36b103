// Text -> tokens -> ids. Behind an interface so a real BPE tokenizer can join later.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mha {

struct Tokenized {
  std::vector<std::string> tokens;  // UTF-8 pieces of the text, in order
  std::vector<int32_t> ids;         // one id per token, in [0, vocab_size)
};

class Tokenizer {
 public:
  virtual ~Tokenizer() = default;
  // Throws mha::Error for invalid UTF-8, empty text, or text over kMaxTextBytes / kMaxTextTokens.
  virtual Tokenized tokenize(const std::string& text) const = 0;
  virtual int vocab_size() const = 0;
  // The text an id stands for without a text to read it from (a predicted token), where the
  // tokenizer has a vocabulary; "" where ids are hashes or first appearances.
  virtual std::string token_text(int32_t) const { return {}; }
  // How it numbers tokens, as ModelFacts names it: "hashed", "first-appearance", "bpe".
  virtual const char* kind() const = 0;
  // text with one more token's text after it, so that the text reads back as its tokens and then
  // that one: GPT-2's tokens carry their own spaces; words cut at spaces need one between them.
  virtual std::string join(const std::string& text, const std::string& token) const { return text + token; }
};

// A teaching tokenizer that needs no vocabulary file:
// - CJK ideographs, kana and Hangul become one token per character (我是秦始皇 -> 5 tokens);
// - runs of other letters and digits (Latin, Cyrillic, accented...) become one word token;
// - each punctuation mark or symbol is its own token; emoji too, with their modifiers,
//   variation selectors and zero-width-joiner sequences kept together;
// - combining marks stay with the character before them; whitespace separates and is dropped.
// ids: FNV-1a 64 of the token's UTF-8 bytes, modulo vocab_size: deterministic on every platform.
class CharWordTokenizer : public Tokenizer {
 public:
  explicit CharWordTokenizer(int vocab_size);
  Tokenized tokenize(const std::string& text) const override;
  int vocab_size() const override { return vocab_size_; }
  const char* kind() const override { return "hashed"; }
  std::string join(const std::string& text, const std::string& token) const override;

 private:
  int vocab_size_;
};

// For a model trained on random ids (the induction task), where only which tokens repeat matters:
// the text is cut as CharWordTokenizer cuts it, the start token (id 0, shown as "<s>") goes first,
// and each distinct piece gets the next free id, 1, 2, 3 … in order of first appearance.
// A text with more distinct pieces than vocab_size − 1 is an error.
class FirstAppearanceTokenizer : public Tokenizer {
 public:
  explicit FirstAppearanceTokenizer(int vocab_size);
  Tokenized tokenize(const std::string& text) const override;
  int vocab_size() const override { return vocab_size_; }
  const char* kind() const override { return "first-appearance"; }
  std::string join(const std::string& text, const std::string& token) const override;

 private:
  int vocab_size_;
};

// The text of the ids a run reads and makes, for a learner: an id the text had is written as it was
// there (the first time), else as the tokenizer's vocabulary has it, else as #id (a trained model's
// first-appearance ids only say which tokens repeat, so a new one has no text). `text` grows by each
// added token, joined as the tokenizer reads it back (Tokenizer::join).
class TokenTexts {
 public:
  // tokens, ids: a run's (Trace::tokens, Trace::ids); tokenizer may be null.
  TokenTexts(const std::vector<std::string>& tokens, const std::vector<int32_t>& ids, const Tokenizer* tokenizer,
             std::string text = {});
  std::string name(int32_t id) const;
  // Appends id's text to text() and returns it.
  std::string add(int32_t id);
  const std::string& text() const { return text_; }

 private:
  std::vector<std::pair<int32_t, std::string>> known_;
  const Tokenizer* tokenizer_;
  std::string text_;
};

// The checks every tokenizer makes, so they all fail alike (field "text", codes text_not_utf8,
// text_too_long, text_empty, text_too_many_tokens):
void check_text(const std::string& text);     // valid UTF-8 of at most kMaxTextBytes
void check_token_count(std::size_t tokens);  // at least one token, at most kMaxTextTokens

// The id a token gets for a given vocabulary size (exposed for tests and documentation).
int32_t hashed_token_id(const std::string& token, int vocab_size);

}  // namespace mha
