// GPT-2's byte-level byte-pair-encoding tokenizer. Text is cut into words (gpt2_pretokenize.h),
// each word's UTF-8 bytes start as one token each, and the merges, lowest rank first, join
// neighbouring tokens until no listed pair is left: " Hello" -> "Ġ","H","e","l","l","o" -> "ĠHello".
// Files load through bpe_files.h; the ids are the model's, so a GPT-2 checkpoint can read text.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "text/tokenizer.h"

namespace mha {

// GPT-2 spells each byte as a printable character so a vocabulary file needs no escapes:
// "!".."~", "¡".."¬", "®".."ÿ" stand for themselves, the other 68 bytes for U+0100 upwards
// (the space 0x20 is "Ġ", newline 0x0A is "Ċ"). Returns that spelling of `bytes`, as UTF-8.
std::string gpt2_spell_bytes(const std::string& bytes);

struct BpeMerge {
  int32_t first, second;  // the neighbouring tokens' ids
  int32_t merged;         // the id of their concatenation
};

class BpeTokenizer : public Tokenizer {
 public:
  // id_tokens[id]: the token as the vocabulary file spells it ("Ġthe"; "" for an unused id).
  // merges: in rank order, rank 0 first. The 256 one-byte tokens must all have ids: otherwise
  // mha::Error naming `source` (the files the vocabulary came from).
  BpeTokenizer(const std::vector<std::string>& id_tokens, std::vector<BpeMerge> merges, const std::string& source);

  // tokens: each token's text; a token holding only part of a character (an emoji is 4 bytes,
  // often split) shows its stray bytes as <0xF0>. Throws mha::Error for bad text (tokenizer.h).
  Tokenized tokenize(const std::string& text) const override;
  int vocab_size() const override { return static_cast<int>(id_text_.size()); }
  const char* kind() const override { return "bpe"; }
  std::string token_text(int32_t id) const override {
    return id >= 0 && id < vocab_size() ? id_text_[static_cast<std::size_t>(id)] : std::string();
  }

 private:
  struct Rank {
    int32_t rank, merged;
  };
  static uint64_t pair_key(int32_t first, int32_t second) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(first)) << 32) | static_cast<uint32_t>(second);
  }
  std::vector<int32_t> merge_word(const std::string& word) const;

  int32_t byte_ids_[256];
  std::unordered_map<uint64_t, Rank> ranks_;  // pair_key(first, second) -> its merge
  std::vector<std::string> id_text_;          // what tokenize shows for each id
  // Words repeat ("the", " of"): their merged ids are kept, up to kCacheWords words. The cache makes
  // tokenize unsafe to call from two threads at once; the CLI and the module each use one.
  static constexpr std::size_t kCacheWords = 1 << 14;
  mutable std::unordered_map<std::string, std::vector<int32_t>> cache_;
};

}  // namespace mha
