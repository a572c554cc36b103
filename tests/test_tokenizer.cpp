#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "base/config.h"
#include "base/error.h"
#include "text/tokenizer.h"

namespace {

using Tokens = std::vector<std::string>;

Tokens tokens_of(const std::string& text) { return mha::CharWordTokenizer(1000).tokenize(text).tokens; }

// Bytes under test are spelled as hex escapes so they are visible. Where a hex digit follows an
// escape the string is concatenated (std::string("\x7F") + "b"), or the digit would join the escape.
const std::string kThumbsUpMedium = "\xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD";  // U+1F44D U+1F3FD
const std::string kZwj = "\xE2\x80\x8D";                                 // U+200D
const std::string kMan = "\xF0\x9F\x91\xA8";                             // U+1F468
const std::string kWoman = "\xF0\x9F\x91\xA9";                           // U+1F469
const std::string kGirl = "\xF0\x9F\x91\xA7";                            // U+1F467
const std::string kGrin = "\xF0\x9F\x98\x80";                            // U+1F600
const std::string kFlagCN = "\xF0\x9F\x87\xA8\xF0\x9F\x87\xB3";          // U+1F1E8 U+1F1F3
const std::string kFlagUS = "\xF0\x9F\x87\xBA\xF0\x9F\x87\xB8";          // U+1F1FA U+1F1F8
const std::string kAcute = "\xCC\x81";                                   // U+0301

}  // namespace

TEST_CASE("Chinese text becomes one token per character") {
  const mha::CharWordTokenizer tok(1000);
  const mha::Tokenized out = tok.tokenize("我是秦始皇");

  SUBCASE("five tokens, one per ideograph") {
    CHECK(out.tokens == Tokens{"我", "是", "秦", "始", "皇"});
    REQUIRE(out.ids.size() == 5);
  }
  SUBCASE("ids are in range and are the hash of each token") {
    REQUIRE(out.ids.size() == out.tokens.size());
    for (std::size_t i = 0; i < out.ids.size(); ++i) {
      CHECK(out.ids[i] >= 0);
      CHECK(out.ids[i] < 1000);
      CHECK(out.ids[i] == mha::hashed_token_id(out.tokens[i], 1000));
    }
  }
  SUBCASE("the same text gives the same ids, also from another tokenizer") {
    CHECK(tok.tokenize("我是秦始皇").ids == out.ids);
    CHECK(mha::CharWordTokenizer(1000).tokenize("我是秦始皇").ids == out.ids);
  }
  SUBCASE("a repeated character gets the same id each time") {
    const mha::Tokenized twice = tok.tokenize("我我");
    REQUIRE(twice.ids.size() == 2);
    CHECK(twice.ids[0] == twice.ids[1]);
    CHECK(twice.ids[0] == out.ids[0]);
  }
  SUBCASE("another vocabulary size changes the ids but keeps them in range") {
    for (const int vocab : {2, 97, 8000, 50257}) {
      const mha::Tokenized other = mha::CharWordTokenizer(vocab).tokenize("我是秦始皇");
      CHECK(other.tokens == out.tokens);
      for (const int32_t id : other.ids) {
        CHECK(id >= 0);
        CHECK(id < vocab);
      }
    }
    CHECK(mha::CharWordTokenizer(997).tokenize("我是秦始皇").ids != out.ids);
  }
  SUBCASE("other CJK scripts") {
    CHECK(tokens_of("ひらがなカタカナ") == Tokens{"ひ", "ら", "が", "な", "カ", "タ", "カ", "ナ"});
    CHECK(tokens_of("한국어") == Tokens{"한", "국", "어"});
    CHECK(tokens_of("\xE3\x90\x80") == Tokens{"\xE3\x90\x80"});        // U+3400, extension A
    CHECK(tokens_of("\xF0\xA0\x80\x80\xF0\xA0\x80\x81").size() == 2);  // U+20000 U+20001
    CHECK(tokens_of("\xEF\xA4\x80\xEF\xA4\x81").size() == 2);          // U+F900 U+F901
  }
}

TEST_CASE("English words and punctuation") {
  SUBCASE("punctuation marks are their own tokens") {
    CHECK(tokens_of("Hello, world!") == Tokens{"Hello", ",", "world", "!"});
  }
  SUBCASE("an apostrophe splits a contraction") { CHECK(tokens_of("didn't") == Tokens{"didn", "'", "t"}); }
  SUBCASE("digits and underscores belong to words") {
    CHECK(tokens_of("snake_case_42 x1") == Tokens{"snake_case_42", "x1"});
  }
  SUBCASE("every ASCII punctuation character except underscore stands alone") {
    const std::string marks = "!\"#$%&'()*+,-./:;<=>?@[\\]^`{|}~";
    const Tokens got = tokens_of(marks);
    REQUIRE(got.size() == marks.size());
    for (std::size_t i = 0; i < marks.size(); ++i) CHECK(got[i] == std::string(1, marks[i]));
  }
  SUBCASE("runs of the same mark are still one token each") {
    CHECK(tokens_of("wait...") == Tokens{"wait", ".", ".", "."});
  }
}

TEST_CASE("Other scripts form word tokens") {
  CHECK(tokens_of("naïve café") == Tokens{"naïve", "café"});
  CHECK(tokens_of("Ελληνικά русский") == Tokens{"Ελληνικά", "русский"});
  CHECK(tokens_of("Łódź") == Tokens{"Łódź"});
  CHECK(tokens_of("ＡＢＣ１２３") == Tokens{"ＡＢＣ１２３"});  // fullwidth letters and digits
}

TEST_CASE("Non-ASCII punctuation and symbols stand alone") {
  SUBCASE("fullwidth CJK punctuation") {
    CHECK(tokens_of("你好，世界。") == Tokens{"你", "好", "，", "世", "界", "。"});
    CHECK(tokens_of("「是」！") == Tokens{"「", "是", "」", "！"});
  }
  SUBCASE("general punctuation") {
    CHECK(tokens_of("“quoted”") == Tokens{"“", "quoted", "”"});
    CHECK(tokens_of("a—b…c") == Tokens{"a", "—", "b", "…", "c"});
  }
  SUBCASE("Latin-1 punctuation") {
    CHECK(tokens_of("¿Qué?") == Tokens{"¿", "Qué", "?"});
    CHECK(tokens_of("3×4÷2") == Tokens{"3", "×", "4", "÷", "2"});
    CHECK(tokens_of("«oui»") == Tokens{"«", "oui", "»"});
  }
  SUBCASE("currency, arrows and maths symbols") {
    CHECK(tokens_of("€5") == Tokens{"€", "5"});
    CHECK(tokens_of("x≠y→z") == Tokens{"x", "≠", "y", "→", "z"});
    CHECK(tokens_of("￥100") == Tokens{"￥", "100"});
  }
  SUBCASE("control characters never glue words together") {
    CHECK(tokens_of(std::string("a\0b", 3)) == Tokens{"a", std::string(1, '\0'), "b"});
    CHECK(tokens_of(std::string("a\x7F") + "b") == Tokens{"a", "\x7F", "b"});
  }
}

TEST_CASE("Mixed Chinese and Latin text") {
  CHECK(tokens_of("我爱NLP!") == Tokens{"我", "爱", "NLP", "!"});
  CHECK(tokens_of("GPT-3很强") == Tokens{"GPT", "-", "3", "很", "强"});
  CHECK(tokens_of("用Python写code") == Tokens{"用", "Python", "写", "code"});
}

TEST_CASE("Emoji keep their clusters together") {
  SUBCASE("skin-tone modifier") { CHECK(tokens_of(kThumbsUpMedium) == Tokens{kThumbsUpMedium}); }
  SUBCASE("zero-width-joiner family") {
    const std::string family = kMan + kZwj + kWoman + kZwj + kGirl;
    CHECK(tokens_of(family) == Tokens{family});
    CHECK(tokens_of(family + family) == Tokens{family, family});
  }
  SUBCASE("modifier and joiner in one sequence") {
    const std::string coder = kWoman + "\xF0\x9F\x8F\xBD" + kZwj + "\xF0\x9F\x92\xBB";  // woman, tone, ZWJ, laptop
    CHECK(tokens_of(coder) == Tokens{coder});
  }
  SUBCASE("regional indicators pair into flags") {
    CHECK(tokens_of(kFlagCN) == Tokens{kFlagCN});
    CHECK(tokens_of(kFlagCN + kFlagUS) == Tokens{kFlagCN, kFlagUS});
    CHECK(tokens_of(kFlagCN + "\xF0\x9F\x87\xBA") == Tokens{kFlagCN, "\xF0\x9F\x87\xBA"});  // odd one out
  }
  SUBCASE("adjacent emoji without a joiner are separate") { CHECK(tokens_of(kGrin + kGrin) == Tokens{kGrin, kGrin}); }
  SUBCASE("variation selector") {
    const std::string heart = "\xE2\x9D\xA4\xEF\xB8\x8F";  // U+2764 U+FE0F
    CHECK(tokens_of(heart + heart) == Tokens{heart, heart});
  }
  SUBCASE("keycap") {
    const std::string keycap = "#\xEF\xB8\x8F\xE2\x83\xA3";  // '#' U+FE0F U+20E3
    CHECK(tokens_of(keycap) == Tokens{keycap});
  }
  SUBCASE("tag sequence (flag of England)") {
    const std::string england =
        "\xF0\x9F\x8F\xB4\xF3\xA0\x81\xA7\xF3\xA0\x81\xA2\xF3\xA0\x81\xA5\xF3\xA0\x81\xAE\xF3\xA0\x81\xA7"
        "\xF3\xA0\x81\xBF";
    CHECK(tokens_of(england) == Tokens{england});
  }
  SUBCASE("emoji split words around them") {
    CHECK(tokens_of("hi" + kGrin + "there") == Tokens{"hi", kGrin, "there"});
    CHECK(tokens_of("好" + kGrin) == Tokens{"好", kGrin});
  }
  SUBCASE("a skin tone with no emoji before it is an emoji of its own") {
    CHECK(tokens_of("a\xF0\x9F\x8F\xBD") == Tokens{"a", "\xF0\x9F\x8F\xBD"});
  }
}

TEST_CASE("Combining marks stay with the character before them") {
  SUBCASE("inside a word") {
    const std::string cafe = "cafe" + kAcute;
    CHECK(tokens_of(cafe + " ok") == Tokens{cafe, "ok"});
    CHECK(tokens_of("e" + kAcute + "t" + kAcute + "e") == Tokens{"e" + kAcute + "t" + kAcute + "e"});
  }
  SUBCASE("after an ideograph or a punctuation mark") {
    CHECK(tokens_of("我" + kAcute + "是") == Tokens{"我" + kAcute, "是"});
    CHECK(tokens_of("!" + kAcute) == Tokens{"!" + kAcute});
  }
  SUBCASE("kana voiced sound mark") {
    CHECK(tokens_of("\xE3\x81\x8B\xE3\x82\x99") == Tokens{"\xE3\x81\x8B\xE3\x82\x99"});  // か + U+3099
  }
  SUBCASE("a mark with nothing before it is kept as its own token") {
    CHECK(tokens_of(kAcute + "a") == Tokens{kAcute, "a"});
    CHECK(tokens_of("a " + kAcute) == Tokens{"a", kAcute});
  }
}

TEST_CASE("Whitespace separates tokens and is dropped") {
  SUBCASE("ASCII whitespace") { CHECK(tokens_of("a b\tc\nd\re\vf\fg") == Tokens{"a", "b", "c", "d", "e", "f", "g"}); }
  SUBCASE("leading, trailing and repeated") { CHECK(tokens_of("  \n a   b \t ") == Tokens{"a", "b"}); }
  SUBCASE("Unicode spaces") {
    const std::string spaces[] = {"\xC2\xA0",     "\xE1\x9A\x80", "\xE2\x80\x80", "\xE2\x80\x8A", "\xE2\x80\xA8",
                                  "\xE2\x80\xA9", "\xE2\x80\xAF", "\xE2\x81\x9F", "\xE3\x80\x80"};
    for (const std::string& space : spaces) {
      CAPTURE(space);
      CHECK(tokens_of("ab" + space + "cd" + space) == Tokens{"ab", "cd"});
    }
  }
  SUBCASE("ideographic space between CJK characters") {
    CHECK(tokens_of("你好\xE3\x80\x80世界") == Tokens{"你", "好", "世", "界"});
  }
}

TEST_CASE("Tokens are exact substrings of the input, in order") {
  const std::string text = "Ça va? 我爱NLP!! " + kThumbsUpMedium + " cafe" + kAcute + "…";
  std::size_t from = 0;
  for (const std::string& token : tokens_of(text)) {
    CAPTURE(token);
    const std::size_t at = text.find(token, from);
    REQUIRE(at != std::string::npos);
    CHECK(text.substr(from, at - from).find_first_not_of(' ') == std::string::npos);  // only spaces skipped
    from = at + token.size();
  }
  CHECK(from == text.size());
}

TEST_CASE("Invalid UTF-8 is rejected with the byte offset") {
  const mha::CharWordTokenizer tok(100);
  SUBCASE("invalid byte") {
    CHECK_THROWS_WITH_AS(tok.tokenize("abc\xFF"), doctest::Contains("not valid UTF-8: invalid byte 0xFF at offset 3"),
                         mha::Error);
    CHECK_THROWS_WITH_AS(tok.tokenize("\xF8\x88\x80\x80\x80"),
                         doctest::Contains("UTF-8: invalid byte 0xF8 at offset 0"), mha::Error);
  }
  SUBCASE("stray continuation byte") {
    CHECK_THROWS_WITH_AS(tok.tokenize("ab\x80"),
                         doctest::Contains("UTF-8: unexpected continuation byte 0x80 at offset 2"), mha::Error);
    // A three-byte character followed by one continuation byte too many.
    CHECK_THROWS_WITH_AS(tok.tokenize("我\xBF"),
                         doctest::Contains("UTF-8: unexpected continuation byte 0xBF at offset 3"), mha::Error);
  }
  SUBCASE("truncated sequence") {
    CHECK_THROWS_WITH_AS(tok.tokenize("a\xE6\x88"), doctest::Contains("UTF-8: truncated sequence at offset 1"),
                         mha::Error);
    CHECK_THROWS_WITH_AS(tok.tokenize("a\xE6\x88z"), doctest::Contains("UTF-8: truncated sequence at offset 1"),
                         mha::Error);
    CHECK_THROWS_WITH_AS(tok.tokenize("\xF0\x9F\x98"), doctest::Contains("UTF-8: truncated sequence at offset 0"),
                         mha::Error);
    CHECK_THROWS_WITH_AS(tok.tokenize("xy\xC3"), doctest::Contains("UTF-8: truncated sequence at offset 2"),
                         mha::Error);
  }
  SUBCASE("overlong encodings") {
    CHECK_THROWS_WITH_AS(tok.tokenize("\xC0\xAF"), doctest::Contains("UTF-8: overlong encoding at offset 0"),
                         mha::Error);
    CHECK_THROWS_WITH_AS(tok.tokenize("ab\xC1\xBF"), doctest::Contains("UTF-8: overlong encoding at offset 2"),
                         mha::Error);
    CHECK_THROWS_WITH_AS(tok.tokenize("a\xE0\x80\xAF"), doctest::Contains("UTF-8: overlong encoding at offset 1"),
                         mha::Error);
    CHECK_THROWS_WITH_AS(tok.tokenize("a\xF0\x8F\xBF\xBF"), doctest::Contains("UTF-8: overlong encoding at offset 1"),
                         mha::Error);
  }
  SUBCASE("surrogates") {
    CHECK_THROWS_WITH_AS(tok.tokenize("a\xED\xA0\x80"), doctest::Contains("UTF-8: surrogate U+D800 at offset 1"),
                         mha::Error);
    CHECK_THROWS_WITH_AS(tok.tokenize("\xED\xBF\xBF"), doctest::Contains("UTF-8: surrogate U+DFFF at offset 0"),
                         mha::Error);
  }
  SUBCASE("code points above U+10FFFF") {
    CHECK_THROWS_WITH_AS(tok.tokenize("a\xF4\x90\x80\x80"),
                         doctest::Contains("UTF-8: code point U+110000 above U+10FFFF at offset 1"), mha::Error);
    CHECK_THROWS_WITH_AS(tok.tokenize("\xF5\x80\x80\x80"), doctest::Contains("UTF-8: code point U+140000"), mha::Error);
  }
  SUBCASE("the edges of the valid ranges are accepted") {
    CHECK(tok.tokenize(std::string("\xC2\x80") + "a").tokens.size() == 2);  // U+0080, the smallest two-byte code point
    CHECK(tok.tokenize("\xED\x9F\xBF").tokens.size() == 1);                 // U+D7FF, just below the surrogates
    CHECK(tok.tokenize("\xEE\x80\x80").tokens.size() == 1);                 // U+E000, just above them
    CHECK(tok.tokenize("\xF4\x8F\xBF\xBF").tokens.size() == 1);             // U+10FFFF
  }
  SUBCASE("checked before the length, so a long broken paste still says what is wrong") {
    CHECK_THROWS_WITH_AS(tok.tokenize(std::string(5000, 'a') + "\xFF"), doctest::Contains("offset 5000"), mha::Error);
  }
}

TEST_CASE("Empty or whitespace-only text is rejected") {
  const mha::CharWordTokenizer tok(100);
  for (const std::string text : {"", " ", "\t\n  \r", "\xE3\x80\x80\xC2\xA0"}) {
    CAPTURE(text);
    CHECK_THROWS_WITH_AS(tok.tokenize(text), "text is empty: type at least one word or character", mha::Error);
  }
}

TEST_CASE("Text over the limits is rejected") {
  const mha::CharWordTokenizer tok(100);
  SUBCASE("bytes") {
    CHECK(tok.tokenize(std::string(mha::kMaxTextBytes, 'a')).tokens.size() == 1);
    CHECK_THROWS_WITH_AS(tok.tokenize(std::string(5000, 'a')), "text is 5000 bytes; the maximum is 4096", mha::Error);
    CHECK_THROWS_WITH_AS(tok.tokenize(std::string(mha::kMaxTextBytes + 1, 'a')),
                         doctest::Contains("text is 4097 bytes"), mha::Error);
  }
  SUBCASE("bytes, not characters, are counted") {
    std::string text;
    while (text.size() <= static_cast<std::size_t>(mha::kMaxTextBytes)) text += "的";  // 3 bytes each
    CHECK_THROWS_WITH_AS(tok.tokenize(text), doctest::Contains("the maximum is 4096"), mha::Error);
  }
  SUBCASE("tokens") {
    std::string text;
    for (int i = 0; i < mha::kMaxTextTokens; ++i) text += "a ";
    CHECK(tok.tokenize(text).tokens.size() == static_cast<std::size_t>(mha::kMaxTextTokens));
    CHECK_THROWS_WITH_AS(tok.tokenize(text + "!"), "text has 513 tokens; the maximum is 512", mha::Error);
  }
}

TEST_CASE("Token ids are FNV-1a 64 modulo the vocabulary size") {
  SUBCASE("a known hash") {
    // FNV-1a 64 of "a" is 0xaf63dc4c8601ec8c = 12638187200555641996.
    CHECK(mha::hashed_token_id("a", 1000) == 996);
    CHECK(mha::hashed_token_id("a", 2147483647) == 1690936615);
    CHECK(mha::CharWordTokenizer(1000).tokenize("a").ids == std::vector<int32_t>{996});
  }
  SUBCASE("a vocabulary of one maps everything to 0") {
    const mha::Tokenized out = mha::CharWordTokenizer(1).tokenize("Hello, 世界! " + kGrin);
    CHECK(out.ids == std::vector<int32_t>(out.tokens.size(), 0));
  }
  SUBCASE("vocab_size is reported back") { CHECK(mha::CharWordTokenizer(8000).vocab_size() == 8000); }
  SUBCASE("a vocabulary size below 1 is rejected") {
    CHECK_THROWS_WITH_AS(mha::CharWordTokenizer(0), "vocab_size must be at least 1, got 0", mha::Error);
    CHECK_THROWS_AS(mha::CharWordTokenizer(-5), mha::Error);
    CHECK_THROWS_AS(mha::hashed_token_id("a", 0), mha::Error);
  }
}
