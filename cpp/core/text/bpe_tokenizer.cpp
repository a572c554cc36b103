#include "text/bpe_tokenizer.h"

#include <cstdio>

#include "base/error.h"
#include "text/gpt2_pretokenize.h"
#include "text/utf8.h"

namespace mha {

namespace {

// The code point GPT-2 spells byte b with (gpt2_spell_bytes).
char32_t byte_spelling(unsigned b) {
  const bool printable = (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
  if (printable) return b;
  // The others, in byte order, take U+0100, U+0101, …: count the non-printable bytes before b.
  unsigned before = 0;
  for (unsigned c = 0; c < b; ++c)
    before += !((c >= 0x21 && c <= 0x7E) || (c >= 0xA1 && c <= 0xAC) || (c >= 0xAE && c <= 0xFF));
  return 0x100 + before;
}

// The byte a spelling code point stands for, or -1 for a character outside GPT-2's 256.
int spelled_byte(char32_t cp) {
  static const std::vector<int> table = [] {
    std::vector<int> t(0x144, -1);
    for (unsigned b = 0; b < 256; ++b) t[byte_spelling(b)] = static_cast<int>(b);
    return t;
  }();
  return cp < table.size() ? table[cp] : -1;
}

// A vocabulary token back to the bytes it stands for. Characters outside the byte alphabet (an
// added special token, say) are kept as they are: no word of text can produce them anyway.
std::string unspell(const std::string& token) {
  std::string bytes;
  for (std::size_t i = 0; i < token.size();) {
    const CodePoint cp = decode_utf8_at(token, i);
    const int b = spelled_byte(cp.value);
    if (b >= 0) bytes += static_cast<char>(b);
    else bytes.append(token, i, cp.size);
    i += cp.size;
  }
  return bytes;
}

// Bytes as a learner can read them: whole characters as they are, stray bytes of a character
// split across tokens as <0xE6>.
std::string readable(const std::string& bytes) {
  std::string out;
  for (std::size_t i = 0; i < bytes.size();) {
    try {
      const CodePoint cp = decode_utf8_at(bytes, i);
      out.append(bytes, i, cp.size);
      i += cp.size;
    } catch (const Error&) {  // only at load time, once per such token
      char buf[8];
      std::snprintf(buf, sizeof buf, "<0x%02X>", static_cast<unsigned char>(bytes[i]));
      out += buf;
      ++i;
    }
  }
  return out;
}

}  // namespace

std::string gpt2_spell_bytes(const std::string& bytes) {
  std::string out;
  for (const char c : bytes) append_utf8(out, byte_spelling(static_cast<unsigned char>(c)));
  return out;
}

BpeTokenizer::BpeTokenizer(const std::vector<std::string>& id_tokens, std::vector<BpeMerge> merges,
                           const std::string& source) {
  std::unordered_map<std::string, int32_t> ids;
  id_text_.reserve(id_tokens.size());
  for (std::size_t id = 0; id < id_tokens.size(); ++id) {
    if (!id_tokens[id].empty()) ids.emplace(id_tokens[id], static_cast<int32_t>(id));
    id_text_.push_back(readable(unspell(id_tokens[id])));
  }
  for (unsigned b = 0; b < 256; ++b) {
    const std::string spelled = gpt2_spell_bytes(std::string(1, static_cast<char>(b)));
    const auto it = ids.find(spelled);
    if (it == ids.end())
      throw Error(ErrorCode::tokenizer_not_byte_level, "tokenizer",
                  {{"file", source}, {"byte", std::to_string(b)}, {"spelled", spelled}});
    byte_ids_[b] = it->second;
  }
  ranks_.reserve(merges.size());
  for (std::size_t rank = 0; rank < merges.size(); ++rank)  // a repeated pair keeps its first, lowest rank
    ranks_.emplace(pair_key(merges[rank].first, merges[rank].second),
                   Rank{static_cast<int32_t>(rank), merges[rank].merged});
}

std::vector<int32_t> BpeTokenizer::merge_word(const std::string& word) const {
  const auto cached = cache_.find(word);
  if (cached != cache_.end()) return cached->second;

  std::vector<int32_t> ids;
  for (const char c : word) ids.push_back(byte_ids_[static_cast<unsigned char>(c)]);
  while (ids.size() > 1) {
    // pass 1: the listed neighbouring pair of lowest rank
    const Rank* best = nullptr;
    std::size_t at = 0;
    for (std::size_t i = 0; i + 1 < ids.size(); ++i) {
      const auto it = ranks_.find(pair_key(ids[i], ids[i + 1]));
      if (it != ranks_.end() && (!best || it->second.rank < best->rank)) {
        best = &it->second;
        at = i;
      }
    }
    if (!best) break;
    // pass 2: join every occurrence of that pair, left to right ("aaa" with a+a -> "aa","a")
    const int32_t first = ids[at], second = ids[at + 1];
    std::vector<int32_t> joined;
    for (std::size_t i = 0; i < ids.size(); ++i) {
      if (ids[i] == first && i + 1 < ids.size() && ids[i + 1] == second) {
        joined.push_back(best->merged);
        ++i;
      } else {
        joined.push_back(ids[i]);
      }
    }
    ids.swap(joined);
  }

  if (cache_.size() >= kCacheWords) cache_.clear();
  cache_.emplace(word, ids);
  return ids;
}

Tokenized BpeTokenizer::tokenize(const std::string& text) const {
  check_text(text);
  Tokenized out;
  for (const std::string& word : gpt2_pretokenize(text)) {
    const std::vector<int32_t> ids = merge_word(word);
    out.ids.insert(out.ids.end(), ids.begin(), ids.end());
  }
  check_token_count(out.ids.size());
  out.tokens.reserve(out.ids.size());
  for (const int32_t id : out.ids) out.tokens.push_back(id_text_[static_cast<std::size_t>(id)]);
  return out;
}

}  // namespace mha
