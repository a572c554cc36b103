#include "text/vocab_tokenizer.h"

#include <nlohmann/json.hpp>
#include <optional>

#include "base/config.h"
#include "base/error.h"
#include "io/json_text.h"
#include "text/utf8.h"

namespace mha {

namespace {

std::optional<WordTag> parse_tag(const std::string& tag) {
  static const std::pair<const char*, WordTag> names[] = {
      {"other", WordTag::other}, {"det", WordTag::det},   {"adj", WordTag::adj},   {"noun", WordTag::noun},
      {"pron_subj", WordTag::pron_subj}, {"pron", WordTag::pron}, {"verb", WordTag::verb}, {"punct", WordTag::punct}};
  for (const auto& [name, value] : names)
    if (tag == name) return value;
  return std::nullopt;
}

bool is_space(char32_t c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' || c == 0xA0 || c == 0x3000; }

// Characters that come off a word's edges as tokens of their own (Brown writes them apart).
bool is_edge_punct(char c) {
  switch (c) {
    case '.': case ',': case ';': case ':': case '!': case '?': case '(': case ')': case '[': case ']':
    case '{': case '}': case '"': case '\'': case '`': case '-': return true;
    default: return false;
  }
}

std::string lower_ascii(std::string s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

// Typed quotes as Brown writes them: “ and an opening " as ``, ” and a closing " as '', ‘ ’ as '.
std::string brown_quotes(std::string piece) {
  const auto replace_all = [&](const std::string& from, const std::string& to) {
    for (size_t at = piece.find(from); at != std::string::npos; at = piece.find(from, at + to.size())) piece.replace(at, from.size(), to);
  };
  replace_all("\u201C", "``");
  replace_all("\u201D", "''");
  replace_all("\u2018", "'");
  replace_all("\u2019", "'");
  if (!piece.empty() && piece.front() == '"') piece.replace(0, 1, "``");
  if (!piece.empty() && piece.back() == '"') piece.replace(piece.size() - 1, 1, "''");
  return piece;
}

// The one JSON reader (json_text.h): one parser in the WebAssembly module, not a second one for
// std::string input (9 KB of its code); and a key given twice is refused, as in every other file.
nlohmann::json vocabulary_json(const std::string& json, const std::string& name) {
  return parse_json_text(json.data(), json.data() + json.size(), name,
                         {ErrorCode::tokenizer_not_json, ErrorCode::tokenizer_number_too_large, ErrorCode::tokenizer_key_twice, "tokenizer"});
}

}  // namespace

Vocabulary parse_vocabulary(const std::string& json, const std::string& name) {
  const auto fail = [&](const std::string& what) { return Error(name + ": not a vocabulary file: " + what); };
  nlohmann::json v = vocabulary_json(json, name);
  if (!v.is_object() || v.value("format", "") != "mha-vocab") throw fail("format is not \"mha-vocab\"");
  if (v.value("version", 0) != 1) throw fail("version is not 1");
  Vocabulary out;
  out.json = json;
  out.kind = v.value("kind", "");
  out.corpus = v.value("corpus", "");
  if (out.kind != "chars" && out.kind != "words") throw fail("kind is neither \"chars\" nor \"words\"");
  const nlohmann::json& tokens = v["tokens"];
  if (!tokens.is_array() || tokens.size() < 3 || tokens.size() > static_cast<size_t>(kMaxVocab)) throw fail("tokens is not a list of 3 or more strings");
  for (const nlohmann::json& t : tokens) {
    if (!t.is_string() || t.get<std::string>().empty()) throw fail("a token is not a non-empty string");
    out.tokens.push_back(t.get<std::string>());
    validate_utf8(out.tokens.back());
  }
  if (out.tokens[VocabTokenizer::kUnk] != "<unk>" || out.tokens[VocabTokenizer::kEos] != "<eos>")
    throw fail("its first tokens are not <unk> and <eos>");
  if (v.contains("tags")) {
    if (!v["tags"].is_array() || v["tags"].size() != out.tokens.size()) throw fail("tags is not one per token");
    for (const nlohmann::json& t : v["tags"]) {
      const std::optional<WordTag> tag = t.is_string() ? parse_tag(t.get<std::string>()) : std::nullopt;
      if (!tag) throw fail("a tag is not one of other, det, adj, noun, pron_subj, pron, verb, punct");
      out.tags.push_back(*tag);
    }
  }
  if (v.contains("fold")) {
    if (!v["fold"].is_object()) throw fail("fold is not an object");
    for (const auto& [from, to] : v["fold"].items()) {
      if (!to.is_string()) throw fail("fold's values are not strings");
      out.fold[from] = to.get<std::string>();
    }
  }
  return out;
}

int special_tokens(const std::string& kind) { return kind == "chars" ? 3 : 2; }

Vocabulary most_frequent(Vocabulary v, int n) {
  const int size = static_cast<int>(v.tokens.size()), specials = special_tokens(v.kind);
  if (n <= specials || n > size)
    throw Error("the " + v.corpus + " vocabulary keeps " + std::to_string(specials + 1) + " to " + std::to_string(size) + " of its tokens, not " +
                std::to_string(n));
  if (n == size) return v;
  v.tokens.resize(static_cast<size_t>(n));
  if (!v.tags.empty()) v.tags.resize(static_cast<size_t>(n));
  nlohmann::json file = vocabulary_json(v.json, v.corpus + " vocabulary");  // parse_vocabulary read it already
  for (const char* list : {"tokens", "counts", "tags"})
    if (file.contains(list)) file[list].get_ref<nlohmann::json::array_t&>().resize(static_cast<size_t>(n));
  for (const char* figure : {"coverage", "bigram_heldout_loss", "bigram_lambda"}) file.erase(figure);
  file["most_frequent_of"] = size;
  v.json = file.dump();
  return v;
}

VocabTokenizer::VocabTokenizer(Vocabulary vocabulary) : vocabulary_(std::move(vocabulary)) {
  for (size_t id = 0; id < vocabulary_.tokens.size(); ++id)
    if (!ids_.emplace(vocabulary_.tokens[id], static_cast<int32_t>(id)).second)
      throw Error("a vocabulary has the token '" + printable(vocabulary_.tokens[id]) + "' twice");
  first_word_ = special_tokens(vocabulary_.kind);
  if (vocabulary_.kind == "chars") {
    if (vocabulary_.tokens[2] != "\n") throw Error("a character vocabulary's third token is the line break");
    newline_ = 2;
  }
}

int32_t VocabTokenizer::id_of(const std::string& token) const {
  const auto it = ids_.find(token);
  return it == ids_.end() ? kUnk : it->second;
}

std::string VocabTokenizer::token_text(int32_t id) const {
  return id >= 0 && id < vocab_size() ? vocabulary_.tokens[static_cast<size_t>(id)] : std::string();
}

std::string VocabTokenizer::join(const std::string& text, const std::string& token) const {
  if (vocabulary_.kind == "chars") return text + (token == "<eos>" ? "\n\n" : token);
  if (token == "<eos>") return text + "\n\n";
  return text.empty() || text.back() == '\n' ? text + token : text + " " + token;
}

WordTag VocabTokenizer::tag(int32_t id) const {
  return vocabulary_.tags.empty() || id < 0 || id >= vocab_size() ? WordTag::other : vocabulary_.tags[static_cast<size_t>(id)];
}

bool VocabTokenizer::ends_half_line(int32_t id) const {
  if (id == newline_ || id == kEos) return true;
  if (vocabulary_.kind != "chars") return false;
  static const char* marks[] = {"，", "。", "？", "！", "；", "：", "、"};
  const std::string& t = vocabulary_.tokens[static_cast<size_t>(id)];
  for (const char* m : marks)
    if (t == m) return true;
  return false;
}

void VocabTokenizer::add_word_piece(Tokenized& out, const std::string& typed) const {
  const auto push = [&](const std::string& text) {
    out.tokens.push_back(text);
    out.ids.push_back(id_of(text));
  };
  const std::string piece = brown_quotes(lower_ascii(typed));
  if (ids_.count(piece)) return push(piece);
  // The punctuation at the edges, each run cut into the longest pieces the vocabulary has (`''`, `--`).
  size_t begin = 0, end = piece.size();
  while (begin < end && is_edge_punct(piece[begin])) ++begin;
  while (end > begin && is_edge_punct(piece[end - 1])) --end;
  const std::string core = piece.substr(begin, end - begin);
  // Brown writes some marks as part of a word: an initial's point (t.), a plural's apostrophe (ladies'), a
  // cut compound's hyphen (seven-); and, where the vocabulary lacks the word, u.s.s.r., an abbreviation's
  // point (rev., blvd.), a year's '61.
  // An initial (t.) and a plural's apostrophe or a compound's hyphen stay on any word.
  if (!core.empty()) {
    const std::string before = piece.substr(0, begin), after = piece.substr(end);
    const bool letters = core.find_first_not_of("abcdefghijklmnopqrstuvwxyz") == std::string::npos;
    const bool digits = core.find_first_not_of("0123456789") == std::string::npos;
    if (before.empty() && (((after == "'" || after == "-") && (letters || digits)) || (after == "." && letters && core.size() == 1)))
      return push(piece);
    if (!ids_.count(core) &&
        (core.find('.') != std::string::npos || (before.empty() && after == "." && letters && core.size() <= 6) ||
         (before == "'" && after.empty() && digits)))
      return push(piece);
  }
  const auto push_punct = [&](const std::string& run) {
    for (size_t at = 0; at < run.size();) {
      size_t n = std::min<size_t>(3, run.size() - at);
      while (n > 1 && !ids_.count(run.substr(at, n))) --n;
      push(run.substr(at, n));
      at += n;
    }
  };
  push_punct(piece.substr(0, begin));
  if (!core.empty()) push(core);
  push_punct(piece.substr(end));
}

Tokenized VocabTokenizer::tokenize(const std::string& text) const {
  check_text(text);
  Tokenized out = tokenize_all(text);
  check_token_count(out.ids.size());
  return out;
}

Tokenized VocabTokenizer::tokenize_all(const std::string& text) const {
  validate_utf8(text);
  Tokenized out;
  const bool chars = vocabulary_.kind == "chars";
  bool blank_run = false;  // inside a run of empty lines: one <eos> for all of them
  for (size_t line_start = 0; line_start <= text.size();) {
    size_t line_end = text.find('\n', line_start);
    const bool ends_with_break = line_end != std::string::npos;
    if (!ends_with_break) line_end = text.size();
    const size_t before = out.ids.size();
    std::string word;
    const auto end_word = [&] {
      if (!word.empty()) add_word_piece(out, word), word.clear();
    };
    for (size_t i = line_start; i < line_end;) {
      const CodePoint cp = decode_utf8_at(text, i);
      const std::string ch = text.substr(i, cp.size);
      i += cp.size;
      if (is_space(cp.value)) {
        end_word();
        continue;
      }
      if (!chars) {
        word += ch;
        continue;
      }
      const auto folded = vocabulary_.fold.find(ch);
      const std::string& simplified = folded == vocabulary_.fold.end() ? ch : folded->second;
      const int32_t id = id_of(simplified);
      out.tokens.push_back(id == kUnk ? ch : simplified);
      out.ids.push_back(id);
    }
    end_word();
    if (out.ids.size() > before) {
      blank_run = false;
      if (chars && ends_with_break) out.tokens.push_back("\n"), out.ids.push_back(newline_);
    } else if (ends_with_break && !blank_run && !out.ids.empty() && line_start > 0) {
      // an empty line after text: the end of a poem or a sample
      out.tokens.push_back("<eos>"), out.ids.push_back(kEos);
      blank_run = true;
    }
    if (!ends_with_break) break;
    line_start = line_end + 1;
  }
  return out;
}

}  // namespace mha
