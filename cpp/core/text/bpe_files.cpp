#include "text/bpe_files.h"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "base/config.h"
#include "base/error.h"
#include "io/safetensors.h"

namespace mha {

namespace {

using nlohmann::json;

[[noreturn]] void bad_file(const std::string& file, const std::string& why) {
  throw Error(ErrorCode::tokenizer_bad_file, "tokenizer", {{"file", file}, {"why", why}});
}

// A token or line of a file inside a message: quoted, control characters escaped so the message
// stays on one line, and cut short if long.
std::string quote_for_message(const std::string& text) {
  std::size_t keep = std::min<std::size_t>(text.size(), 80);
  while (keep < text.size() && (static_cast<unsigned char>(text[keep]) & 0xC0) == 0x80) --keep;  // whole characters
  static const char kHex[] = "0123456789ABCDEF";
  std::string out = "\"";
  for (std::size_t i = 0; i < keep; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20) out += std::string("\\x") + kHex[c >> 4] + kHex[c & 15];
    else out += static_cast<char>(c);
  }
  return out + (keep < text.size() ? "…\"" : "\"");
}

json parse_json(const std::vector<uint8_t>& bytes, const std::string& file) {
  try {
    return json::parse(bytes.begin(), bytes.end());
  } catch (const json::parse_error& e) {
    bad_file(file, "not valid JSON (at byte " + std::to_string(e.byte) + ")");
  }
}

// A token -> id object as tokens by id; ids must be whole numbers in [0, kMaxVocab), each used once.
std::vector<std::string> tokens_by_id(const json& vocab, const std::string& file) {
  if (!vocab.is_object() || vocab.empty()) bad_file(file, "the vocabulary is not a non-empty {\"token\": id} object");
  std::vector<std::string> tokens;
  for (const auto& [token, id_value] : vocab.items()) {
    if (token.empty()) bad_file(file, "the vocabulary has an empty token");
    if (!id_value.is_number_integer()) bad_file(file, "the id of " + quote_for_message(token) + " is not a whole number");
    const int64_t id = id_value.get<int64_t>();
    if (id < 0 || id >= kMaxVocab)
      bad_file(file, quote_for_message(token) + " has id " + std::to_string(id) + ", outside 0 to " + std::to_string(kMaxVocab - 1));
    if (static_cast<std::size_t>(id) >= tokens.size()) tokens.resize(static_cast<std::size_t>(id) + 1);
    std::string& slot = tokens[static_cast<std::size_t>(id)];
    if (!slot.empty()) bad_file(file, "id " + std::to_string(id) + " is given to both " + quote_for_message(slot) + " and " + quote_for_message(token));
    slot = token;
  }
  return tokens;
}

// Turns merges spelled as token pairs into ids; `where(i)` says where merge i is, for errors.
class MergeResolver {
 public:
  MergeResolver(const std::vector<std::string>& tokens, std::string file) : file_(std::move(file)) {
    for (std::size_t id = 0; id < tokens.size(); ++id)
      if (!tokens[id].empty()) ids_.emplace(tokens[id], static_cast<int32_t>(id));
  }
  void add(const std::string& first, const std::string& second, const std::string& where) {
    const std::string merged = first + second;
    for (const std::string* token : {&first, &second, &merged})
      if (ids_.find(*token) == ids_.end())
        bad_file(file_, where + ": " + quote_for_message(first + " " + second) + " needs " + quote_for_message(*token) + ", which is not in the vocabulary");
    merges_.push_back({ids_[first], ids_[second], ids_[merged]});
  }
  std::vector<BpeMerge> take() { return std::move(merges_); }

 private:
  std::string file_;
  std::unordered_map<std::string, int32_t> ids_;
  std::vector<BpeMerge> merges_;
};

// "a b" -> {"a", "b"}; false unless exactly two parts separated by spaces.
bool split_merge(const std::string& line, std::string& first, std::string& second) {
  const std::size_t a_end = line.find(' ');
  if (a_end == 0 || a_end == std::string::npos) return false;
  const std::size_t b_start = line.find_first_not_of(' ', a_end);
  if (b_start == std::string::npos) return false;
  const std::size_t b_end = line.find(' ', b_start);
  if (b_end != std::string::npos && line.find_first_not_of(' ', b_end) != std::string::npos) return false;
  first = line.substr(0, a_end);
  second = line.substr(b_start, b_end == std::string::npos ? std::string::npos : b_end - b_start);
  return true;
}

bool file_exists(const std::string& path) { return std::ifstream(path).good(); }

}  // namespace

std::shared_ptr<BpeTokenizer> bpe_from_vocab_and_merges(const std::vector<uint8_t>& vocab_json, const std::string& vocab_name,
                                                        const std::vector<uint8_t>& merges_text, const std::string& merges_name) {
  const std::vector<std::string> tokens = tokens_by_id(parse_json(vocab_json, vocab_name), vocab_name);
  MergeResolver merges(tokens, merges_name);
  const std::string text(merges_text.begin(), merges_text.end());
  std::size_t line_number = 0;
  for (std::size_t start = 0; start < text.size();) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();  // a file saved on Windows
    if (line.empty() || (line_number == 1 && line.rfind("#version", 0) == 0)) continue;
    std::string first, second;
    if (!split_merge(line, first, second))
      bad_file(merges_name, "line " + std::to_string(line_number) + " is not two tokens separated by a space: " + quote_for_message(line));
    merges.add(first, second, "line " + std::to_string(line_number));
  }
  return std::make_shared<BpeTokenizer>(tokens, merges.take(), vocab_name + " and " + merges_name);
}

std::shared_ptr<BpeTokenizer> bpe_from_tokenizer_json(const std::vector<uint8_t>& bytes, const std::string& name) {
  const json root = parse_json(bytes, name);
  if (!root.is_object() || !root.contains("model") || !root["model"].is_object()) bad_file(name, "has no \"model\" object");
  const json& model = root["model"];
  if (model.contains("type") && model["type"] != "BPE") bad_file(name, "model.type is not \"BPE\"");
  if (!model.contains("vocab") || !model.contains("merges") || !model["merges"].is_array())
    bad_file(name, "model needs \"vocab\" and a \"merges\" array");
  const std::vector<std::string> tokens = tokens_by_id(model["vocab"], name);
  MergeResolver merges(tokens, name);
  const json& list = model["merges"];
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string where = "model.merges[" + std::to_string(i) + "]";
    const json& m = list[i];
    std::string first, second;
    const bool pair = m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string();
    if (pair) {
      first = m[0].get<std::string>();
      second = m[1].get<std::string>();
    } else if (!m.is_string() || !split_merge(m.get<std::string>(), first, second)) {
      bad_file(name, where + " is neither \"a b\" nor [\"a\", \"b\"]");
    }
    merges.add(first, second, where);
  }
  return std::make_shared<BpeTokenizer>(tokens, merges.take(), name);
}

std::shared_ptr<BpeTokenizer> load_bpe_tokenizer(const std::string& dir) {
  const std::string base = dir.empty() || dir.back() == '/' ? dir : dir + "/";
  auto first_of = [&](const char* a, const char* b) {
    return file_exists(base + a) ? base + a : file_exists(base + b) ? base + b : std::string();
  };
  const std::string vocab = first_of("encoder.json", "vocab.json");
  const std::string merges = first_of("vocab.bpe", "merges.txt");
  if (!vocab.empty() && !merges.empty()) return bpe_from_vocab_and_merges(read_file(vocab), vocab, read_file(merges), merges);
  if (file_exists(base + "tokenizer.json")) return bpe_from_tokenizer_json(read_file(base + "tokenizer.json"), base + "tokenizer.json");
  throw Error(ErrorCode::tokenizer_missing, "tokenizer", {{"dir", dir}});
}

}  // namespace mha
