#include "text/bpe_files.h"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "base/config.h"
#include "base/error.h"
#include "io/files.h"
#include "io/json_text.h"

namespace mha {

namespace {

using nlohmann::json;

// Every error about a tokenizer file: field "tokenizer", the file's name in {file}.
[[noreturn]] void bad_file(ErrorCode code, const std::string& file, ErrorParams params = {}) {
  params["file"] = printable(file, 200);
  throw Error(code, "tokenizer", std::move(params));
}

// A token or line of a file inside a message: quoted, on one line, cut short if long (error.h).
std::string quote_for_message(const std::string& text) { return "\"" + printable(text) + "\""; }

json parse_json(const std::vector<uint8_t>& bytes, const std::string& file) {
  const char* begin = reinterpret_cast<const char*>(bytes.data());
  return parse_json_text(begin, begin + bytes.size(), printable(file, 200),
                         {ErrorCode::tokenizer_not_json, ErrorCode::tokenizer_number_too_large,
                          ErrorCode::tokenizer_key_twice, "tokenizer"});
}

// A token -> id object as tokens by id; ids must be whole numbers in [0, kMaxVocab), each used once.
std::vector<std::string> tokens_by_id(const json& vocab, const std::string& file) {
  if (!vocab.is_object() || vocab.empty()) bad_file(ErrorCode::tokenizer_vocab_not_object, file);
  std::vector<std::string> tokens;
  for (const auto& [token, id_value] : vocab.items()) {
    if (token.empty()) bad_file(ErrorCode::tokenizer_empty_token, file);
    if (!id_value.is_number_integer())
      bad_file(ErrorCode::tokenizer_id_not_whole, file, {{"token", quote_for_message(token)}});
    const int64_t id =
        id_value.is_number_unsigned() && id_value.get<uint64_t>() > INT64_MAX ? -1 : id_value.get<int64_t>();
    if (id < 0 || id >= kMaxVocab)
      bad_file(ErrorCode::tokenizer_id_range, file,
               {{"token", quote_for_message(token)},
                {"id", id_value.is_number_unsigned() ? std::to_string(id_value.get<uint64_t>()) : std::to_string(id)},
                {"max", std::to_string(kMaxVocab - 1)}});
    if (static_cast<std::size_t>(id) >= tokens.size()) tokens.resize(static_cast<std::size_t>(id) + 1);
    std::string& slot = tokens[static_cast<std::size_t>(id)];
    if (!slot.empty())
      bad_file(ErrorCode::tokenizer_id_twice, file,
               {{"id", std::to_string(id)}, {"first", quote_for_message(slot)}, {"second", quote_for_message(token)}});
    slot = token;
  }
  return tokens;
}

// Turns merges spelled as token pairs into ids; an unknown token is `unknown`'s error, whose
// params `where` say where the merge is (its line, or its index in model.merges).
class MergeResolver {
 public:
  MergeResolver(const std::vector<std::string>& tokens, std::string file) : file_(std::move(file)) {
    for (std::size_t id = 0; id < tokens.size(); ++id)
      if (!tokens[id].empty()) ids_.emplace(tokens[id], static_cast<int32_t>(id));
  }
  void add(const std::string& first, const std::string& second, ErrorCode unknown, ErrorParams where) {
    const std::string merged = first + second;
    for (const std::string* token : {&first, &second, &merged})
      if (ids_.find(*token) == ids_.end()) {
        where["merge"] = quote_for_message(first + " " + second);
        where["token"] = quote_for_message(*token);
        bad_file(unknown, file_, std::move(where));
      }
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
    const std::string at = std::to_string(line_number);
    if (!split_merge(line, first, second))
      bad_file(ErrorCode::tokenizer_bad_merge_line, merges_name, {{"line", at}, {"text", quote_for_message(line)}});
    merges.add(first, second, ErrorCode::tokenizer_merge_line_unknown, {{"line", at}});
  }
  return std::make_shared<BpeTokenizer>(tokens, merges.take(), printable(vocab_name, 200));
}

std::shared_ptr<BpeTokenizer> bpe_from_tokenizer_json(const std::vector<uint8_t>& bytes, const std::string& name) {
  const json root = parse_json(bytes, name);
  if (!root.is_object() || !root.contains("model") || !root["model"].is_object())
    bad_file(ErrorCode::tokenizer_no_model, name);
  const json& model = root["model"];
  if (model.contains("type") && model["type"] != "BPE") bad_file(ErrorCode::tokenizer_not_bpe, name);
  if (!model.contains("vocab") || !model.contains("merges") || !model["merges"].is_array())
    bad_file(ErrorCode::tokenizer_no_vocab_merges, name);
  const std::vector<std::string> tokens = tokens_by_id(model["vocab"], name);
  MergeResolver merges(tokens, name);
  const json& list = model["merges"];
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string at = std::to_string(i);
    const json& m = list[i];
    std::string first, second;
    const bool pair = m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string();
    if (pair) {
      first = m[0].get<std::string>();
      second = m[1].get<std::string>();
    } else if (!m.is_string() || !split_merge(m.get<std::string>(), first, second)) {
      bad_file(ErrorCode::tokenizer_bad_merge, name, {{"index", at}});
    }
    merges.add(first, second, ErrorCode::tokenizer_merge_unknown, {{"index", at}});
  }
  return std::make_shared<BpeTokenizer>(tokens, merges.take(), printable(name, 200));
}

std::shared_ptr<BpeTokenizer> load_bpe_tokenizer(const std::string& dir) {
  const std::string base = dir.empty() || dir.back() == '/' ? dir : dir + "/";
  auto first_of = [&](const char* a, const char* b) {
    return file_exists(base + a) ? base + a : file_exists(base + b) ? base + b : std::string();
  };
  const std::string vocab = first_of("encoder.json", "vocab.json");
  const std::string merges = first_of("vocab.bpe", "merges.txt");
  const auto read = [](const std::string& path) { return read_file(path, kMaxTokenizerFileBytes); };
  if (!vocab.empty() && !merges.empty()) return bpe_from_vocab_and_merges(read(vocab), vocab, read(merges), merges);
  const std::string json = base + "tokenizer.json";
  if (file_exists(json)) return bpe_from_tokenizer_json(read(json), json);
  throw Error(ErrorCode::tokenizer_missing, "tokenizer", {{"dir", printable(dir, 200)}});
}

}  // namespace mha
