// The real-text models' tokenizers (text/vocab_tokenizer.h) on the shipped held-out excerpts
// (models/corpus/, made by npm run corpus) and on what a learner types; the corpus task's batches.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "base/error.h"
#include "io/files.h"
#include "io/model_file.h"
#include "model/model.h"
#include "test_helpers.h"
#include "text/vocab_tokenizer.h"
#include "train/corpus_task.h"
#include "train/recipe.h"

namespace {

std::string text_of(const std::string& path) {
  const std::vector<uint8_t> bytes = mha_test::read_or_fail(path, "npm run corpus makes it");
  return std::string(bytes.begin(), bytes.end());
}

mha::VocabTokenizer tokenizer_of(const std::string& corpus) {
  const std::string path = mha_test::models_dir() + "/corpus/" + corpus + ".vocab.json";
  return mha::VocabTokenizer(mha::parse_vocabulary(text_of(path), path));
}

std::vector<std::string> split_words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

}  // namespace

TEST_CASE("Brown: text made of Brown's words reads back one token per word, <unk> where the vocabulary lacks it") {
  const mha::VocabTokenizer tok = tokenizer_of("brown");
  const std::string text = text_of(mha_test::models_dir() + "/corpus/brown.heldout.txt");
  const mha::Tokenized out = tok.tokenize_all(text);
  std::vector<std::string> expected;  // each word, and <eos> where a sample ends (an empty line)
  std::istringstream lines(text);
  bool blank = false;
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) {
      if (!blank && !expected.empty()) expected.push_back("<eos>");
      blank = true;
      continue;
    }
    blank = false;
    for (const std::string& w : split_words(line)) expected.push_back(w);
  }
  REQUIRE(out.tokens.size() == expected.size());
  std::set<std::string> vocabulary(tok.vocabulary().tokens.begin(), tok.vocabulary().tokens.end());
  int unknown = 0, mismatched = 0;
  for (size_t i = 0; i < expected.size(); ++i) {
    mismatched += out.tokens[i] != expected[i];
    const bool known = vocabulary.count(expected[i]) > 0;
    unknown += !known;
    if (known) mismatched += tok.token_text(out.ids[i]) != expected[i];
    else mismatched += out.ids[i] != mha::VocabTokenizer::kUnk;
  }
  CHECK(mismatched == 0);
  CHECK(unknown > 0);  // the excerpt has words outside the 4,000: they are counted, not dropped
  CHECK(unknown < static_cast<int>(expected.size()) / 4);
}

TEST_CASE("Brown: typed English is cut as Brown cuts it") {
  const mha::VocabTokenizer tok = tokenizer_of("brown");
  const auto tokens = [&](const std::string& t) { return tok.tokenize(t).tokens; };
  using T = std::vector<std::string>;
  CHECK(tokens("The jury was tired.") == T{"the", "jury", "was", "tired", "."});
  CHECK(tokens("\"It's late,\" she said.") == T{"``", "it's", "late", ",", "''", "she", "said", "."});
  CHECK(tokens("\u201CYes\u201D \u2014 no?") == T{"``", "yes", "''", "\u2014", "no", "?"});
  CHECK(tokens("the ladies' hats") == T{"the", "ladies'", "hats"});
  CHECK(tok.tokenize("Mr. Smith").ids[0] != mha::VocabTokenizer::kUnk);  // Brown's mr. is a word
  const mha::Tokenized unknown = tok.tokenize("zyzzyvas sang");
  CHECK(unknown.ids[0] == mha::VocabTokenizer::kUnk);
  CHECK(unknown.tokens[0] == "zyzzyvas");  // the run keeps what the learner typed
  CHECK(tok.token_text(unknown.ids[0]) == "<unk>");
  CHECK(tok.tokenize("one\n\ntwo").tokens == T{"one", "<eos>", "two"});
}

TEST_CASE("Tang: one token per character, a line break \\n, an empty line <eos>; traditional folds to simplified") {
  const mha::VocabTokenizer tok = tokenizer_of("tang");
  const std::string text = text_of(mha_test::models_dir() + "/corpus/tang.heldout.txt");
  const mha::Tokenized out = tok.tokenize_all(text);
  // Reading the tokens back gives the text: each character, "\n" per line, an empty line per <eos>; a
  // traditional form OpenCC kept in a name (於) comes back folded.
  std::string folded;
  for (size_t at = 0; at < text.size();) {
    size_t n = 1;
    while (at + n < text.size() && (static_cast<unsigned char>(text[at + n]) & 0xC0) == 0x80) ++n;
    const auto it = tok.vocabulary().fold.find(text.substr(at, n));
    folded += it == tok.vocabulary().fold.end() ? text.substr(at, n) : it->second;
    at += n;
  }
  CHECK(folded != text);
  std::string back;
  int unknown = 0;
  for (size_t i = 0; i < out.ids.size(); ++i) {
    unknown += out.ids[i] == mha::VocabTokenizer::kUnk;
    back += out.ids[i] == mha::VocabTokenizer::kEos ? "\n" : out.tokens[i];
  }
  CHECK(back == folded);
  CHECK(unknown > 0);
  CHECK(unknown < static_cast<int>(out.ids.size()) / 20);  // 3,000 characters cover ~98 % of the poems

  SUBCASE("the first couplet, traditional or simplified, is the same ids") {
    const mha::Tokenized simplified = tok.tokenize("秦川雄帝宅，函谷壮皇居。");
    const mha::Tokenized traditional = tok.tokenize("秦川雄帝宅，函谷壯皇居。");
    CHECK(simplified.ids == traditional.ids);
    CHECK(traditional.tokens[8] == "壮");  // shown as the model reads it
    CHECK(simplified.ids.size() == 12);
    for (int32_t id : simplified.ids) CHECK(id != mha::VocabTokenizer::kUnk);
  }
  SUBCASE("lines and poems") {
    const mha::Tokenized two = tok.tokenize("床前明月光，\r\n疑是地上霜。\n\n\n举头");
    CHECK(two.tokens == std::vector<std::string>{"床", "前", "明", "月", "光", "，", "\n", "疑", "是", "地", "上", "霜", "。", "\n",
                                                 "<eos>", "举", "头"});
  }
  SUBCASE("a learner's text keeps the limits every tokenizer has") {
    CHECK_THROWS_AS(tok.tokenize(""), mha::Error);
    CHECK_THROWS_AS(tok.tokenize("\xff"), mha::Error);
    CHECK_THROWS_AS(tok.tokenize(std::string(5000, 'a')), mha::Error);
  }
}

TEST_CASE("a vocabulary's most frequent tokens: the first n kept, the rest <unk>, its file rewritten to say so") {
  for (const char* corpus : {"tang", "brown"}) {
    CAPTURE(corpus);
    const std::string path = mha_test::models_dir() + "/corpus/" + corpus + ".vocab.json";
    const mha::Vocabulary whole = mha::parse_vocabulary(text_of(path), path);
    const mha::Vocabulary kept = mha::most_frequent(whole, 100);
    CHECK(kept.tokens == std::vector<std::string>(whole.tokens.begin(), whole.tokens.begin() + 100));
    CHECK(kept.tags.size() == (whole.tags.empty() ? 0 : 100));
    // The rewritten file reads back as the same vocabulary, and says what it was cut from.
    const mha::Vocabulary again = mha::parse_vocabulary(kept.json, "kept");
    CHECK(again.tokens == kept.tokens);
    const nlohmann::json file = nlohmann::json::parse(kept.json);
    CHECK(file["most_frequent_of"] == whole.tokens.size());
    CHECK_FALSE(file.contains("coverage"));
    // A token past the first 100 reads as <unk>; one within it as its id.
    const mha::VocabTokenizer small(kept), full(whole);
    const std::string rare = whole.tokens[500], common = whole.tokens[50];
    CHECK(full.tokenize_all(rare).ids == std::vector<int32_t>{500});
    CHECK(small.tokenize_all(rare).ids == std::vector<int32_t>{mha::VocabTokenizer::kUnk});
    CHECK(small.tokenize_all(common).ids == std::vector<int32_t>{50});
    CHECK(mha::most_frequent(whole, static_cast<int>(whole.tokens.size())).json == whole.json);
    CHECK_THROWS_WITH_AS(mha::most_frequent(whole, 2), doctest::Contains("not 2"), mha::Error);
    CHECK_THROWS_AS(mha::most_frequent(whole, static_cast<int>(whole.tokens.size()) + 1), mha::Error);
  }
}

TEST_CASE("a vocabulary that is not one is refused, naming its file") {
  const auto refused = [](const std::string& json) {
    try {
      mha::parse_vocabulary(json, "v.json");
    } catch (const mha::Error& e) {
      return std::string(e.what()).find("v.json") != std::string::npos;
    }
    return false;
  };
  CHECK(refused("{"));
  CHECK(refused("[]"));
  CHECK(refused(R"({"format": "mha-vocab", "version": 1, "version": 1, "kind": "chars", "tokens": ["<unk>", "<eos>", "\n"]})"));
  CHECK(refused(R"({"format": "mha-vocab", "version": 2, "kind": "chars", "tokens": ["<unk>", "<eos>", "\n"]})"));
  CHECK(refused(R"({"format": "mha-vocab", "version": 1, "kind": "bytes", "tokens": ["<unk>", "<eos>", "\n"]})"));
  CHECK(refused(R"({"format": "mha-vocab", "version": 1, "kind": "words", "tokens": ["<eos>", "<unk>", "a"]})"));
  CHECK(refused(R"({"format": "mha-vocab", "version": 1, "kind": "words", "tokens": ["<unk>", "<eos>", "a"], "tags": ["x", "y", "z"]})"));
  CHECK_THROWS_AS(mha::VocabTokenizer(mha::parse_vocabulary(
                      R"({"format": "mha-vocab", "version": 1, "kind": "words", "tokens": ["<unk>", "<eos>", "a", "a"]})", "v")),
                  mha::Error);
}

TEST_CASE("a corpus model's file carries its vocabulary: read back, it reads text with no other file") {
  const std::string path = mha_test::models_dir() + "/corpus/tang.vocab.json";
  auto corpus = std::make_shared<mha::Corpus>();
  corpus->name = "tang";
  corpus->tokenizer = std::make_shared<mha::VocabTokenizer>(mha::parse_vocabulary(text_of(path), path));
  corpus->train = corpus->tokenizer->tokenize_all("秦川雄帝宅，函谷壮皇居。\n绮殿千寻起，离宫百雉余。\n").ids;
  mha::Recipe r = mha::corpus_recipe("tang", corpus);
  r.config.layers = 1, r.config.d_model = 16, r.config.heads = 2;
  r.corpus.length = 8;
  r = mha::checked_recipe(r);
  mha::Training training(r);
  const float first = training.step();
  CHECK(std::isfinite(first));
  const std::vector<uint8_t> bytes = mha::write_model(training.trainer().weights(), r.config, mha::training_metadata(r, 1));
  const mha::Model model = mha::Model::from_model_file(bytes.data(), bytes.size(), mha::WeightLayout::gpt2, 0);
  REQUIRE(model.tokenizer() != nullptr);
  CHECK(std::string(model.tokenizer()->kind()) == "chars");
  CHECK(model.facts().task == "corpus");
  CHECK(model.run_text("秦川雄帝宅").ids == std::vector<int32_t>(corpus->train.begin(), corpus->train.begin() + 5));

  SUBCASE("a window's targets are its ids one further, drawn the same for a seed") {
    mha::Rng a(7), b(7);
    const mha::Batch one = mha::corpus_batch(a, r.corpus, 3), two = mha::corpus_batch(b, r.corpus, 3);
    CHECK(one.ids == two.ids);
    for (int w = 0; w < 3; ++w)
      for (int t = 0; t + 1 < 8; ++t) CHECK(one.targets[static_cast<size_t>(w * 8 + t)] == one.ids[static_cast<size_t>(w * 8 + t + 1)]);
  }
  SUBCASE("a file whose vocabulary does not fit its token table is refused") {
    std::map<std::string, std::string> metadata = mha::training_metadata(r, 1);
    metadata["vocabulary"] = R"({"format": "mha-vocab", "version": 1, "corpus": "tang", "kind": "chars", "tokens": ["<unk>", "<eos>", "\n"]})";
    const std::vector<uint8_t> bad = mha::write_model(training.trainer().weights(), r.config, metadata);
    CHECK_THROWS_AS(mha::Model::from_model_file(bad.data(), bad.size(), mha::WeightLayout::gpt2, 0), mha::Error);
  }
}

TEST_CASE("the corpus recipe's learning rate: linear warm-up to lr, then linear down to final_lr · lr at the last step") {
  mha::Recipe r = mha::corpus_recipe("tang");
  r.steps = 1000, r.warmup = 100, r.final_lr = 0.1f, r.adam.lr = 2e-3f;
  CHECK(mha::scheduled_lr(r, 1) == doctest::Approx(2e-5));
  CHECK(mha::scheduled_lr(r, 50) == doctest::Approx(1e-3));
  CHECK(mha::scheduled_lr(r, 100) == doctest::Approx(2e-3));
  CHECK(mha::scheduled_lr(r, 550) == doctest::Approx(2e-3 * (1 - 0.5 * 0.9)));
  CHECK(mha::scheduled_lr(r, 1000) == doctest::Approx(2e-4));
  CHECK(mha::scheduled_lr(r, 1200) == doctest::Approx(2e-4));  // past the end: the last rate
  // the toy tasks' recipes keep a constant rate, bit for bit
  const mha::Recipe induction = mha::induction_recipe();
  for (int s : {1, 2, 1500, 3000}) CHECK(mha::scheduled_lr(induction, s) == induction.adam.lr);
}

TEST_CASE("the corpora are one table: each corpus's recipe, the CLI's choices and the error read its row") {
  CHECK(mha::corpus_names() == std::vector<std::string>{"tang", "brown"});
  for (const mha::CorpusSpec& c : mha::kCorpora) {
    const mha::Recipe r = mha::corpus_recipe(c.name);  // no corpus loaded: the vocabulary's size from the row
    CHECK(r.config.vocab_size == c.vocab_size);
    CHECK(r.steps == c.steps);
    CHECK(r.config.seed == c.seed);
    CHECK(mha::corpus_recipe_page(c.name).config.seed == c.page_seed);  // the page's figures' seed, not the shipped model's
    CHECK(r.corpus.corpus == c.name);
    CHECK(mha::corpus_choices().find(std::string(c.name) + " (" + c.what + ")") != std::string::npos);
  }
  try {
    mha::corpus_spec("tangg");
    FAIL("a misspelt corpus was accepted");
  } catch (const mha::Error& e) {
    CHECK(std::string(e.what()) == "unknown corpus 'tangg'; expected tang or brown");
  }
}
