// The tokenizers of the models trained on real text (train/corpus_task.h): a fixed vocabulary,
// frequency-ordered, that travels inside the model file (its __metadata__ "vocabulary", the JSON that
// `npm run corpus` writes as models/corpus/{corpus}.vocab.json), so a model reads text with no other file.
//   chars  (the Tang poems): one token per character; traditional characters fold to simplified with
//          the vocabulary's "fold" table (OpenCC's, one character at a time), so either script reads;
//          a line break is the token "\n", an empty line the end-of-poem token <eos>; other white space
//          is dropped.
//   words  (the Brown corpus): lower-cased words cut at white space, as Brown cuts them: a piece the
//          vocabulary has is one token (`it's`, `mr.`, `''`); otherwise the punctuation at its edges
//          comes off as tokens of its own (`tired.` → `tired` `.`), typed quotes becoming Brown's
//          `` and ''. An empty line is <eos> (the end of a Brown sample).
// Anything outside the vocabulary is <unk> (id 0): the trace keeps the text it stood for.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "text/tokenizer.h"

namespace mha {

// Coarse parts of speech, each word's most frequent Brown tag in the training text (the vocabulary's
// "tags"): what the syntactic head types read. A lexicon, not a parser: a word is always its usual part.
enum class WordTag : uint8_t { other, det, adj, noun, pron_subj, pron, verb, punct };

struct Vocabulary {
  std::string corpus;  // "tang", "brown"
  std::string kind;    // "chars" or "words"
  std::vector<std::string> tokens;  // id → text; <unk> 0, <eos> 1, then (chars) "\n", then by frequency
  std::vector<WordTag> tags;        // words: per id; empty for chars
  std::unordered_map<std::string, std::string> fold;  // chars: traditional character → simplified
  std::string json;  // the file it came from, byte for byte: what a model file stores
};

// How many special tokens open a vocabulary of this kind: <unk>, <eos>, and for characters "\n".
int special_tokens(const std::string& kind);

// Parses models/corpus/{corpus}.vocab.json (format "mha-vocab", version 1); `name` names it in errors.
Vocabulary parse_vocabulary(const std::string& json, const std::string& name);
// Its `n` most frequent tokens (the first n: the file is frequency-ordered after its specials), the
// rest becoming <unk>; its JSON rewritten to say so (what a model file stores), the figures of the
// whole vocabulary (coverage, bigram loss) dropped. A smaller model trains faster on it (the page's
// recipe). mha::Error unless the specials fit and n is at most its size.
Vocabulary most_frequent(Vocabulary vocabulary, int n);

class VocabTokenizer : public Tokenizer {
 public:
  static constexpr int32_t kUnk = 0, kEos = 1;
  explicit VocabTokenizer(Vocabulary vocabulary);

  // A learner's text: check_text's limits, then tokenize_all.
  Tokenized tokenize(const std::string& text) const override;
  // Text of any length (a whole corpus split): valid UTF-8 only, no limit on its size.
  Tokenized tokenize_all(const std::string& text) const;

  int vocab_size() const override { return static_cast<int>(vocabulary_.tokens.size()); }
  std::string token_text(int32_t id) const override;
  const char* kind() const override { return vocabulary_.kind == "chars" ? "chars" : "words"; }
  std::string join(const std::string& text, const std::string& token) const override;

  const Vocabulary& vocabulary() const { return vocabulary_; }
  bool is_special(int32_t id) const { return id < first_word_; }  // <unk>, <eos>, "\n"
  int32_t newline_id() const { return newline_; }                 // −1 for words
  WordTag tag(int32_t id) const;
  // A half-line ends at it (the poems' ，。？！；：、, "\n", <eos>): the parallel-line head type reads lines so.
  bool ends_half_line(int32_t id) const;

 private:
  int32_t id_of(const std::string& token) const;  // kUnk when the vocabulary has none
  void add_word_piece(Tokenized& out, const std::string& piece) const;
  Vocabulary vocabulary_;
  std::unordered_map<std::string, int32_t> ids_;
  int32_t newline_ = -1, first_word_ = 0;  // first_word_: special_tokens(kind), set by the constructor
};

}  // namespace mha
