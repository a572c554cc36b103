// Generation (generate.h, sampling.h, kv_cache.h). Map of this file:
//   PyTorch       — greedy decoding with a KV cache: the same ids and, step by step, the same logits
//                   as tests/reference/make_generate_reference.py; the warped distributions too
//   cache         — cached = uncached (ids, each step's logits) on attn-only and GPT-2 models, greedy
//                   and sampled; the cache holds the uncached run's k_heads and v_heads
//   p             — each step's p is the chosen id's probability under its distribution
//   sampling      — top-k 1 is greedy, a seed repeats, settings out of range are refused
//   the trained model — greedy decoding completes a repeat: [<s>, s1 … sL, s1 … s3] → s4 … sL
//   limits        — a prompt plus N past the model's positions is refused before anything runs
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "base/error.h"
#include "io/model_file.h"
#include "io/safetensors.h"
#include "kernels/loss.h"
#include "model/generate.h"
#include "test_helpers.h"

namespace {

using mha::GenerateOptions;
using mha::Model;

std::vector<uint8_t> reference_bytes(const std::string& name, const char* remake) {
  const std::string path = mha_test::reference_dir() + "/" + name;
  try {
    return mha::read_file(path);
  } catch (const mha::Error&) {
    FAIL("missing reference file " << path << "; regenerate with: " << remake);
  }
  return {};
}

const char* kRemake = "/usr/bin/python3 tests/reference/make_generate_reference.py";

Model reference_model(const char* name) {
  const auto bytes = reference_bytes(std::string(name) + ".model.safetensors", "/usr/bin/python3 tests/reference/make_model_reference.py");
  const mha::SafetensorsFile file(bytes.data(), bytes.size());
  return Model::from_model_file(bytes.data(), bytes.size(), mha::parse_layout(mha::guess_layout(file)), 0);
}

Model shipped_model() {
  const std::string path = mha_test::reference_dir() + "/../../../models/induction.safetensors";  // the repo root
  const auto bytes = mha::read_file(path);
  return Model::from_model_file(bytes.data(), bytes.size(), mha::WeightLayout::attn_only, 0);
}

// Each step's logits row (the last position of the step's run), and the ids, of a whole generation.
struct Stepped {
  std::vector<int32_t> ids;
  std::vector<std::vector<float>> logits;
  std::vector<mha::Draw> draws;
};
Stepped run_steps(const Model& model, const std::vector<int32_t>& prompt, const GenerateOptions& o) {
  mha::Generator g(model, prompt, o);
  Stepped out;
  while (!g.done()) {
    out.draws.push_back(g.step());
    const mha::Tensor& logits = g.trace().get("logits");
    const size_t V = static_cast<size_t>(logits.shape[2]), last = static_cast<size_t>(logits.shape[1]) - 1;
    out.logits.emplace_back(logits.data.begin() + last * V, logits.data.begin() + (last + 1) * V);
  }
  out.ids = g.ids();
  return out;
}

// max |a − b| / max |b| over one row.
double relative_error(const std::vector<float>& a, const float* b) {
  double worst = 0, scale = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    worst = std::max(worst, std::fabs(static_cast<double>(a[i]) - b[i]));
    scale = std::max(scale, std::fabs(static_cast<double>(b[i])));
  }
  return worst / scale;
}

// The distribution a setting draws from, written out again: softmax(logits / temperature) in
// double, the k likeliest, then the likeliest whose predecessors (renormalised) sum below top_p.
std::vector<double> expected_distribution(const std::vector<float>& logits, const mha::SamplingOptions& o) {
  const int V = static_cast<int>(logits.size());
  std::vector<double> q(V);
  double max = *std::max_element(logits.begin(), logits.end()), sum = 0;
  for (int i = 0; i < V; ++i) sum += q[i] = std::exp((logits[i] - max) / o.temperature);
  for (double& x : q) x /= sum;
  std::vector<int> order(V);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return logits[a] > logits[b]; });
  int kept = o.top_k > 0 ? std::min(o.top_k, V) : V;
  double total = 0;
  for (int r = 0; r < kept; ++r) total += q[order[r]];
  double before = 0;
  int r = 0;
  for (; r < kept && (r == 0 || before / total < o.top_p); ++r) before += q[order[r]];
  kept = r;
  std::vector<double> out(V, 0.0);
  total = 0;
  for (r = 0; r < kept; ++r) total += q[order[r]];
  for (r = 0; r < kept; ++r) out[order[r]] = q[order[r]] / total;
  return out;
}

GenerateOptions greedy(int tokens) {
  GenerateOptions o;
  o.tokens = tokens;
  return o;
}

GenerateOptions sampled(int tokens, float temperature, int top_k, float top_p, uint64_t seed) {
  GenerateOptions o = greedy(tokens);
  o.sampling = {temperature, top_k, top_p, seed};
  return o;
}

}  // namespace

TEST_CASE("greedy decoding with a KV cache matches PyTorch's: the same ids, each step's logits within 1e-5") {
  const auto bytes = reference_bytes("generate.expected.safetensors", kRemake);
  const mha::SafetensorsFile expected(bytes.data(), bytes.size());
  const int prompt = std::stoi(expected.metadata().at("prompt")), made = std::stoi(expected.metadata().at("new"));
  for (const char* name : {"tiny_gpt2", "tiny_attn_only"}) {
    CAPTURE(name);
    const Model model = reference_model(name);
    std::vector<int32_t> ids;
    for (int64_t id : expected.read_int(std::string(name) + ".ids")) ids.push_back(static_cast<int32_t>(id));
    REQUIRE(static_cast<int>(ids.size()) == prompt + made);
    const mha::Tensor logits = expected.read_float(std::string(name) + ".logits");
    const int V = static_cast<int>(logits.shape[1]);
    for (bool cache : {true, false}) {
      CAPTURE(cache);
      GenerateOptions o = greedy(made);
      o.use_cache = cache;
      const Stepped got = run_steps(model, std::vector<int32_t>(ids.begin(), ids.begin() + prompt), o);
      CHECK(got.ids == ids);
      for (int s = 0; s < made; ++s) {
        CAPTURE(s);
        CHECK(relative_error(got.logits[s], logits.ptr() + static_cast<size_t>(s) * V) <= 1e-5);
      }
    }
  }
}

TEST_CASE("each setting's distribution is Hugging Face's warpers' (temperature, top-k, top-p) on PyTorch's logits") {
  const auto bytes = reference_bytes("generate.expected.safetensors", kRemake);
  const mha::SafetensorsFile expected(bytes.data(), bytes.size());
  std::vector<mha::SamplingOptions> settings;
  const std::string list = expected.metadata().at("settings") + ";";
  for (size_t at = 0, end; (end = list.find(';', at)) != std::string::npos; at = end + 1) {
    float temperature = 0, top_p = 0;
    int top_k = 0;
    REQUIRE(std::sscanf(list.substr(at, end - at).c_str(), "%g/%d/%g", &temperature, &top_k, &top_p) == 3);
    settings.push_back({temperature, top_k, top_p, 1});
  }
  REQUIRE(settings.size() == 5);
  for (const char* name : {"tiny_gpt2", "tiny_attn_only"}) {
    const mha::Tensor logits = expected.read_float(std::string(name) + ".logits");
    const int N = static_cast<int>(logits.shape[0]), V = static_cast<int>(logits.shape[1]);
    for (size_t i = 0; i < settings.size(); ++i) {
      const mha::Tensor dist = expected.read_float(std::string(name) + ".dist." + std::to_string(i));
      for (int s = 0; s < N; ++s) {
        CAPTURE(name);
        CAPTURE(i);
        CAPTURE(s);
        const float* row = logits.ptr() + static_cast<size_t>(s) * V;
        std::vector<float> probs(V);
        mha::softmax_forward_rows(probs.data(), row, 1, V);
        mha::Rng rng(1);
        const mha::Draw d = mha::draw_next(row, probs.data(), V, settings[i], rng, V);  // every id listed
        REQUIRE(static_cast<int>(d.top.size()) == V);
        int kept = 0;
        for (const mha::Candidate& c : d.top) {
          CHECK(c.p == doctest::Approx(dist.data[static_cast<size_t>(s) * V + c.id]).epsilon(1e-5));
          kept += c.p > 0;
        }
        CHECK(d.kept == kept);
        CHECK(d.p == doctest::Approx(dist.data[static_cast<size_t>(s) * V + d.id]).epsilon(1e-5));
        CHECK(d.p > 0);
      }
    }
  }
}

TEST_CASE("a short list of candidates is the head of the whole ranking, ties to the lower id, greedy and sampled") {
  const int V = 300;
  std::vector<float> logits(V), probs(V);
  for (int i = 0; i < V; ++i) logits[i] = static_cast<float>((i * 7919) % 23) / 4.0f;  // 23 levels: many ties
  mha::softmax_forward_rows(probs.data(), logits.data(), 1, V);
  for (mha::SamplingOptions o : {mha::SamplingOptions{0.0f, 0, 1.0f, 1}, mha::SamplingOptions{1.0f, 0, 1.0f, 7},
                                 mha::SamplingOptions{0.7f, 0, 1.0f, 9}}) {
    CAPTURE(o.temperature);
    mha::Rng all_rng(o.seed);
    const mha::Draw all = mha::draw_next(logits.data(), probs.data(), V, o, all_rng, V);  // sorted whole
    for (int count : {0, 1, 5, 64, 65}) {
      CAPTURE(count);
      mha::Rng rng(o.seed);
      const mha::Draw d = mha::draw_next(logits.data(), probs.data(), V, o, rng, count);
      CHECK(d.id == all.id);
      CHECK(d.p == all.p);
      REQUIRE(static_cast<int>(d.top.size()) == count);
      for (int r = 0; r < count; ++r) {
        CHECK(d.top[r].id == all.top[r].id);
        CHECK(d.top[r].p == all.top[r].p);
      }
    }
    for (int r = 1; r < V; ++r) {  // the whole ranking: by logit, ties to the lower id
      const int a = all.top[r - 1].id, b = all.top[r].id;
      CHECK((logits[a] > logits[b] || (logits[a] == logits[b] && a < b)));
    }
  }
}

TEST_CASE("cached = uncached: the same ids and each step's logits within 1e-5, greedy and sampled, attn-only and GPT-2") {
  mha::Config gpt2;
  gpt2.preset = mha::Preset::gpt2, gpt2.layers = 3, gpt2.d_model = 24, gpt2.heads = 6, gpt2.kv_heads = 2;
  gpt2.vocab_size = 50, gpt2.max_positions = 40, gpt2.causal = true, gpt2.seed = 5;
  const Model grouped(gpt2);  // grouped-query: 2 K/V heads for 6 query heads
  const Model shipped = shipped_model(), tiny_gpt2 = reference_model("tiny_gpt2"), tiny_attn_only = reference_model("tiny_attn_only");
  for (const Model* model : {&shipped, &tiny_gpt2, &tiny_attn_only, &grouped}) {
    CAPTURE(mha::preset_name(model->config().preset));
    CAPTURE(model->config().kv_heads_or_heads());
    const std::vector<int32_t> prompt = {0, 5, 9, 23, 3, 5, 9};
    for (GenerateOptions o : {greedy(12), sampled(12, 1.0f, 0, 1.0f, 3), sampled(12, 0.8f, 8, 0.9f, 4)}) {
      CAPTURE(o.sampling.temperature);
      o.use_cache = true;
      const Stepped cached = run_steps(*model, prompt, o);
      o.use_cache = false;
      const Stepped whole = run_steps(*model, prompt, o);
      CHECK(cached.ids == whole.ids);
      for (size_t s = 0; s < cached.logits.size(); ++s) {
        CAPTURE(s);
        CHECK(relative_error(cached.logits[s], whole.logits[s].data()) <= 1e-5);
        CHECK(cached.draws[s].p == whole.draws[s].p);
      }
    }
  }
}

TEST_CASE("the KV cache holds what the uncached run splits into k_heads and v_heads, layer by layer") {
  const Model model = reference_model("tiny_gpt2");
  mha::Generator g(model, {1, 2, 3, 4, 1, 2}, greedy(5));
  while (!g.done()) g.step();
  const mha::KvCache& cache = *g.cache();
  const int cached = static_cast<int>(g.ids().size()) - 1;  // the last id drawn has not been run yet
  CHECK(cache.length() == cached);
  CHECK(cache.bytes() == 2LL * model.config().layers * model.config().kv_dim() * 4 * cached);
  const mha::Trace whole = model.run_ids(std::vector<int32_t>(g.ids().begin(), g.ids().begin() + cached));
  for (int layer = 0; layer < model.config().layers; ++layer) {
    CAPTURE(layer);
    const mha::Tensor k = cache.heads(layer, false), v = cache.heads(layer, true);
    const mha::Tensor &k_run = whole.get(layer, "k_heads"), &v_run = whole.get(layer, "v_heads");
    CHECK(k.shape == k_run.shape);
    CHECK(k.data == k_run.data);
    CHECK(v.data == v_run.data);
  }
}

TEST_CASE("each step's p is the chosen id's probability in the distribution it was drawn from") {
  const Model model = reference_model("tiny_gpt2");
  const std::vector<int32_t> prompt = {3, 1, 4, 1, 5};
  SUBCASE("greedy: the likeliest id of the softmax of the logits") {
    const Stepped got = run_steps(model, prompt, greedy(8));
    for (size_t s = 0; s < got.draws.size(); ++s) {
      const std::vector<double> p = expected_distribution(got.logits[s], {1.0f, 0, 1.0f, 1});
      const int best = static_cast<int>(std::max_element(got.logits[s].begin(), got.logits[s].end()) - got.logits[s].begin());
      CHECK(got.draws[s].id == best);
      CHECK_FALSE(got.draws[s].sampled);
      CHECK(got.draws[s].p == doctest::Approx(p[best]).epsilon(1e-5));
    }
  }
  SUBCASE("sampled: after temperature, top-k and top-p, renormalised") {
    for (GenerateOptions o : {sampled(8, 1.0f, 0, 1.0f, 11), sampled(8, 0.7f, 6, 1.0f, 12), sampled(8, 1.5f, 0, 0.7f, 13),
                              sampled(8, 0.9f, 20, 0.95f, 14)}) {
      const Stepped got = run_steps(model, prompt, o);
      for (size_t s = 0; s < got.draws.size(); ++s) {
        const std::vector<double> p = expected_distribution(got.logits[s], o.sampling);
        const mha::Draw& d = got.draws[s];
        CHECK(d.sampled);
        CHECK(p[d.id] > 0);  // never an id the cut removed
        CHECK(d.p == doctest::Approx(p[d.id]).epsilon(1e-5));
        CHECK(d.kept == std::count_if(p.begin(), p.end(), [](double x) { return x > 0; }));
      }
    }
  }
}

TEST_CASE("top-k 1 is greedy at any temperature; a seed repeats its draws and another seed draws others") {
  const Model model = reference_model("tiny_attn_only");
  const std::vector<int32_t> prompt = {7, 8, 9};
  const std::vector<int32_t> greedy_ids = mha::generate(model, prompt, greedy(15)).ids;
  for (float temperature : {0.5f, 1.0f, 3.0f})
    CHECK(mha::generate(model, prompt, sampled(15, temperature, 1, 1.0f, 9)).ids == greedy_ids);
  const mha::Generated a = mha::generate(model, prompt, sampled(15, 1.2f, 0, 1.0f, 42));
  const mha::Generated b = mha::generate(model, prompt, sampled(15, 1.2f, 0, 1.0f, 42));
  const mha::Generated c = mha::generate(model, prompt, sampled(15, 1.2f, 0, 1.0f, 43));
  CHECK(a.ids == b.ids);
  for (size_t s = 0; s < a.steps.size(); ++s) CHECK(a.steps[s].p == b.steps[s].p);
  CHECK(a.ids != c.ids);
  CHECK(a.ids != greedy_ids);
}

// Each token once in the first copy, so the rest of the repeat is unambiguous: the task's sequences
// draw with replacement, and where a token occurs twice the first copy says two different things.
TEST_CASE("greedy decoding on the shipped model completes a repeat: [<s>, s1 … sL, s1 … s3] → s4 … sL") {
  const Model model = shipped_model();
  mha::Rng rng(20261125);
  std::vector<int32_t> tokens(static_cast<size_t>(model.config().vocab_size - 1));
  std::iota(tokens.begin(), tokens.end(), 1);  // every id but the start token's
  for (int L = 4; L <= 30; ++L)
    for (int n = 0; n < 3; ++n) {
      for (size_t i = tokens.size() - 1; i > 0; --i) std::swap(tokens[i], tokens[rng.next_u32() % (i + 1)]);
      const std::vector<int32_t> s(tokens.begin(), tokens.begin() + L);
      std::vector<int32_t> prompt = {0};
      prompt.insert(prompt.end(), s.begin(), s.end());
      prompt.insert(prompt.end(), s.begin(), s.begin() + 3);
      const mha::Generated g = mha::generate(model, prompt, greedy(L - 3));
      CAPTURE(L);
      CHECK(std::vector<int32_t>(g.ids.begin() + static_cast<std::ptrdiff_t>(prompt.size()), g.ids.end()) ==
            std::vector<int32_t>(s.begin() + 3, s.end()));
    }
}

TEST_CASE("generation is refused before anything runs: past the model's positions, bad settings, no logits") {
  const Model model = shipped_model();  // 61 positions
  const int positions = model.config().max_positions;
  const std::vector<int32_t> prompt(50, 1);
  CHECK_THROWS_WITH_AS(mha::Generator(model, prompt, greedy(positions - 49)),
                       doctest::Contains("50 tokens of text and 12 new ones make 62, but the model has only 61 positions"),
                       mha::Error);
  CHECK_NOTHROW(mha::Generator(model, prompt, greedy(positions - 50)));
  try {
    mha::Generator(model, prompt, greedy(20));
  } catch (const mha::Error& e) {
    CHECK(e.code() == "generate_past_positions");
    CHECK(e.field() == "tokens");
  }
  CHECK_THROWS_WITH_AS(mha::Generator(model, prompt, greedy(0)), doctest::Contains("tokens must be between 1"), mha::Error);
  CHECK_THROWS_WITH_AS(mha::Generator(model, {1, 2}, sampled(2, -1.0f, 0, 1.0f, 1)),
                       doctest::Contains("temperature must be between 0 and 10, got -1"), mha::Error);
  CHECK_THROWS_WITH_AS(mha::Generator(model, {1, 2}, sampled(2, 1.0f, 65, 1.0f, 1)),
                       doctest::Contains("top_k must be between 0 and 64, got 65"), mha::Error);
  CHECK_THROWS_WITH_AS(mha::Generator(model, {1, 2}, sampled(2, 1.0f, 0, 1.5f, 1)),
                       doctest::Contains("top_p must be between 0 and 1, got 1.5"), mha::Error);
  mha::Generator outside(model, {1, 64}, greedy(2));  // the prompt's ids are the first step's to check, before it draws
  CHECK_THROWS_WITH_AS(outside.step(), doctest::Contains("token id 64 at position 1"), mha::Error);
  CHECK(outside.ids() == std::vector<int32_t>{1, 64});
  CHECK_THROWS_WITH_AS(mha::Generator(Model(mha::Config{}), {1, 2}, greedy(2)), doctest::Contains("no logits"), mha::Error);
  mha::Generator g(model, {1, 2}, greedy(1));
  g.step();
  CHECK_THROWS_WITH_AS(g.step(), doctest::Contains("has made its 1 tokens"), mha::Error);
}

TEST_CASE("a generation's text: the text's own tokens, the vocabulary's, or #id, joined as the tokenizer reads them back") {
  const Model model = shipped_model();
  const mha::Tokenized prompt = model.tokenizer()->tokenize("a b c a b");
  mha::TokenTexts texts(prompt.tokens, prompt.ids, model.tokenizer(), "a b c a b");
  CHECK(texts.name(3) == "c");
  CHECK(texts.name(40) == "#40");
  CHECK(texts.add(3) == "c");
  CHECK(texts.text() == "a b c a b c");  // words need a space between them
  const mha::Tokenized chinese = model.tokenizer()->tokenize("我是秦，我是");
  mha::TokenTexts zh(chinese.tokens, chinese.ids, model.tokenizer(), "我是秦，我是");
  zh.add(3);
  zh.add(4);
  CHECK(zh.text() == "我是秦，我是秦，");  // characters do not
  CHECK(model.tokenizer()->tokenize(zh.text()).ids == std::vector<int32_t>{0, 1, 2, 3, 4, 1, 2, 3, 4});
}

TEST_CASE("the KV cache's size: 2 × layers × kv_heads × d_head × bytes per value × tokens; the published models") {
  CHECK(mha::kv_cache_bytes(32, 8, 128, 2, 8192) == 1073741824LL);  // Llama 3 8B at 8K tokens in 16 bits: 1 GiB
  CHECK(mha::kv_cache_bytes(12, 12, 64, 4, 1024) == 75497472LL);
  const auto& table = mha::published_attention_table();
  REQUIRE(table.size() == 4);
  for (const mha::PublishedAttention& m : table) {
    CAPTURE(m.name);
    CHECK(m.heads % m.kv_heads == 0);
    CHECK(m.d_head * m.heads >= 768);
  }
}
