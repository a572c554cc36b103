// Models of blocks: the stage table is true of every run, the forward matches PyTorch on the
// reference models (tests/reference/make_model_reference.py), files round-trip, bad input is refused.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "base/error.h"
#include "model/model.h"
#include "io/model_builder.h"
#include "io/model_file.h"
#include "io/files.h"
#include "io/safetensors.h"
#include "model/stages.h"
#include "model/forward.h"
#include "model/parameters.h"
#include "model/weights.h"
#include "test_helpers.h"
#include "train/recipe.h"
#include "train/train.h"

namespace {

using mha::Shape;

mha::Config blocks_config(mha::Preset preset, int layers = 2, int d = 16, int heads = 4, int vocab = 32) {
  mha::Config c;
  c.preset = preset;
  c.layers = layers;
  c.d_model = d;
  c.heads = heads;
  c.vocab_size = vocab;
  c.max_positions = 24;
  c.causal = true;
  c.seed = 7;
  return c;
}

// Every parameter of `got` has the shape and the bits of the same parameter of `expected`.
void check_same_parameters(const mha::ModelWeights& got, const mha::ModelWeights& expected, const mha::Config& c) {
  std::vector<const mha::Tensor*> want;
  mha::for_each_parameter(expected, c, [&](const std::string&, const mha::ParameterSpec&, const mha::Tensor& t) { want.push_back(&t); });
  size_t i = 0;
  mha::for_each_parameter(got, c, [&](const std::string& name, const mha::ParameterSpec&, const mha::Tensor& t) {
    CAPTURE(name);
    REQUIRE(i < want.size());
    CHECK(t.shape == want[i]->shape);
    CHECK(t.data == want[i]->data);
    ++i;
  });
  CHECK(i == want.size());
}

// Every entry's shape is the table's expression for it, and stages come in the table's order.
void check_against_table(const mha::Trace& t, const mha::Config& c) {
  const int T = static_cast<int>(t.ids.empty() ? t.get("x").shape[1] : static_cast<int64_t>(t.ids.size()));
  const std::map<std::string, int64_t> dims = mha::shape_dims(c, T);
  int last_stage = -1, last_layer = -1;
  for (const mha::TraceEntry& e : t.entries()) {
    CAPTURE(e.name);
    const mha::TensorSpec* spec = mha::find_tensor_spec(e.name);
    REQUIRE(spec != nullptr);
    CHECK(spec->stage == e.stage);
    CHECK(e.tensor.shape == mha::evaluate_shape(spec->shape, dims));
    CHECK(mha::layer_of(e.name) == e.layer);
    if (e.layer != last_layer) last_stage = -1;  // a new block walks its stages again
    CHECK(static_cast<int>(e.stage) >= last_stage);
    last_stage = static_cast<int>(e.stage), last_layer = e.layer;
  }
}

}  // namespace

TEST_CASE("the stage table describes every tensor of every kind of model") {
  SUBCASE("a single layer, causal and grouped-query") {
    mha::Config c;
    c.d_model = 24, c.heads = 6, c.kv_heads = 2, c.causal = true;
    check_against_table(mha::Model(c).run_text("the cat sat on the mat"), c);
  }
  SUBCASE("attn-only") {
    const mha::Config c = blocks_config(mha::Preset::attn_only);
    const mha::Trace t = mha::Model(c).run_ids({0, 3, 5, 3, 5});
    check_against_table(t, c);
    CHECK(t.entries().size() == mha::model_trace_size(c));
    CHECK(t.has("layers.1.resid_mid"));
    CHECK_FALSE(t.has("layers.0.ln_1"));
  }
  SUBCASE("gpt2") {
    const mha::Config c = blocks_config(mha::Preset::gpt2, 3);
    const mha::Trace t = mha::Model(c).run_ids({1, 2, 3});
    check_against_table(t, c);
    CHECK(t.entries().size() == mha::model_trace_size(c));
    CHECK(t.has("layers.2.resid_out"));
    CHECK(t.has("ln_f"));
  }
  SUBCASE("attn-only with K readouts: logits and probs (1, T, K, vocab)") {
    mha::Config c = blocks_config(mha::Preset::attn_only, 1);
    c.readouts = 3;
    const mha::Trace t = mha::Model(c).run_ids({0, 3, 5, 3, 5});
    check_against_table(t, c);
    CHECK(t.get("logits").shape == Shape{1, 5, 3, 32});
    CHECK(t.get("probs").shape == Shape{1, 5, 3, 32});
    for (int row = 0; row < 5 * 3; ++row) {  // each readout row is its own softmax
      double sum = 0;
      for (int v = 0; v < 32; ++v) sum += t.get("probs").data[static_cast<size_t>(row) * 32 + v];
      CHECK(sum == doctest::Approx(1.0).epsilon(1e-5));
    }
  }
  SUBCASE("a typo in a shape expression is an error") {
    CHECK_THROWS_WITH_AS(mha::evaluate_shape("(1, T, d_modle)", {{"T", 2}}), doctest::Contains("unknown size 'd_modle'"),
                         mha::Error);
    CHECK(mha::evaluate_shape("(1, T, 4·d_model)", {{"T", 2}, {"d_model", 8}}) == Shape{1, 2, 32});
    // "readouts?": there only when more than 1
    CHECK(mha::evaluate_shape("(1, T, readouts?, vocab)", {{"T", 2}, {"readouts", 1}, {"vocab", 9}}) == Shape{1, 2, 9});
    CHECK(mha::evaluate_shape("(1, T, readouts?, vocab)", {{"T", 2}, {"readouts", 4}, {"vocab", 9}}) == Shape{1, 2, 4, 9});
  }
}

TEST_CASE("each kind of model walks its stages, in the table's order") {
  const auto walk = [](mha::Preset preset, double rope_base = 0) {
    mha::Config c;
    c.preset = preset;
    c.rope_base = rope_base;
    std::string out;
    for (mha::Stage s : mha::stages_of(c)) out += std::string(out.empty() ? "" : " ") + mha::stage_name(s);
    return out;
  };
  CHECK(walk(mha::Preset::single) == "tokenize embed project split attend concat output");
  CHECK(walk(mha::Preset::single, 10000) == "tokenize embed project split rope attend concat output");
  CHECK(walk(mha::Preset::attn_only) == "tokenize embed project split attend concat output residual logits predict");
  CHECK(walk(mha::Preset::gpt2) ==
        "tokenize embed ln_1 project split attend concat output residual ln_2 mlp mlp_residual ln_f logits predict");
}

TEST_CASE("raw scores are the scores before the mask: every entry finite, equal below the diagonal") {
  mha::Config c;
  c.d_model = 16, c.heads = 2, c.causal = true;
  const mha::Trace t = mha::Model(c).run_text("one two three four");
  const mha::Tensor& raw = t.get("raw_scores");
  const mha::Tensor& masked = t.get("scores");
  const int T = 4;
  for (int h = 0; h < 2; ++h)
    for (int i = 0; i < T; ++i)
      for (int j = 0; j < T; ++j) {
        const size_t at = static_cast<size_t>((h * T + i) * T + j);
        CHECK(std::isfinite(raw.data[at]));
        if (j <= i) CHECK(raw.data[at] == doctest::Approx(masked.data[at]).epsilon(1e-6));
        else CHECK(std::isinf(masked.data[at]));
      }
}

TEST_CASE("every tensor of every layer matches PyTorch on the reference models, on both kernel paths") {
  for (const char* name : {"tiny_gpt2", "tiny_attn_only", "tiny_recall"}) {
    CAPTURE(name);
    const auto model_bytes = mha_test::model_reference_file(std::string(name) + ".model.safetensors");
    const auto expected_bytes = mha_test::model_reference_file(std::string(name) + ".expected.safetensors");
    const mha::SafetensorsFile model_file(model_bytes.data(), model_bytes.size());
    const mha::SafetensorsFile expected(expected_bytes.data(), expected_bytes.size());
    const std::string layout = mha::guess_layout(model_file);
    CHECK(layout == expected.metadata().at("layout"));
    const mha::Model model = mha::Model::from_model_file(model_bytes.data(), model_bytes.size(), mha::parse_layout(layout), 0);
    std::vector<int32_t> ids;
    for (int64_t id : expected.read_int("ids")) ids.push_back(static_cast<int32_t>(id));
    for (mha::KernelPath path : {mha::KernelPath::simd, mha::KernelPath::scalar}) {
      CAPTURE(mha::kernel_path_name(path));
      const mha::Trace t = model.run_ids(ids, path);
      int compared = 0;
      for (const std::string& tensor : expected.names()) {
        if (tensor == "ids") continue;
        REQUIRE(t.has(tensor));
        mha_test::check_close(t.get(tensor), expected.read_float(tensor), 1e-5, tensor);
        ++compared;
      }
      CHECK(compared == static_cast<int>(t.entries().size()));  // the reference has every tensor we record
    }
  }
}

TEST_CASE("a model file round-trips through write_model and read_model") {
  for (mha::Preset preset : {mha::Preset::attn_only, mha::Preset::gpt2}) {
    CAPTURE(mha::preset_name(preset));
    const mha::Config c = blocks_config(preset);
    const mha::Model model(c);
    const std::vector<uint8_t> bytes = mha::write_model(model.model_weights(), c, {{"recipe", "test"}});
    const mha::SafetensorsFile file(bytes.data(), bytes.size());
    CHECK(mha::guess_layout(file) == mha::preset_name(preset));
    CHECK(file.metadata().at("recipe") == "test");
    const mha::LoadedModel loaded = mha::read_model(file, preset, 0);  // heads from __metadata__
    CHECK(loaded.config.heads == c.heads);
    CHECK(loaded.config.layers == c.layers);
    CHECK(loaded.config.vocab_size == c.vocab_size);
    check_same_parameters(mha::unpack_model(loaded.weights, loaded.config), model.model_weights(), c);
  }
}

TEST_CASE("every preset with blocks saves and loads in the layout named after it") {
  for (const mha::PresetSpec& p : mha::kPresets) {
    CAPTURE(p.name);
    if (!p.blocks) continue;
    const mha::WeightLayout layout = mha::whole_model_layout(p.preset);
    CHECK(std::string(mha::layout_name(layout)) == p.name);
    const mha::Config c = blocks_config(p.preset);
    const std::vector<uint8_t> bytes = mha::write_model(mha::Model(c).model_weights(), c);
    const mha::SafetensorsFile file(bytes.data(), bytes.size());
    CHECK(file.metadata().at("layout") == p.name);
    CHECK(mha::whole_model_preset(file, file.metadata().at("layout")) == p.preset);
    const mha::Model loaded = mha::Model::from_model_file(bytes.data(), bytes.size(), layout, 0);
    CHECK(loaded.config().preset == p.preset);
    CHECK(loaded.facts().layout == p.name);
  }
  CHECK_THROWS_WITH_AS(mha::whole_model_layout(mha::Preset::single), "a single model has no file layout of its own",
                       mha::Error);
}

TEST_CASE("a whole model is read in a layout of a preset with blocks only") {
  const mha::Config c = blocks_config(mha::Preset::gpt2);
  const std::vector<uint8_t> bytes = mha::write_model(mha::Model(c).model_weights(), c);
  const mha::SafetensorsFile file(bytes.data(), bytes.size(), "m.safetensors");
  for (const char* one : {"pytorch", "llama"}) {
    CAPTURE(one);
    CHECK_THROWS_WITH_AS(mha::Model::from_model_file(bytes.data(), bytes.size(), mha::parse_layout(one), 0),
                         ("a whole model is read in the gpt2 or attn-only layout, not " + std::string(one)).c_str(),
                         mha::Error);
    CHECK_THROWS_WITH_AS(mha::whole_model_preset(file, one),
                         ("m.safetensors holds one " + std::string(one) +
                          " attention layer, not a whole model: load it as weights").c_str(),
                         mha::Error);
  }
  CHECK_THROWS_WITH_AS(mha::whole_model_preset(file, "bert"),
                       "unknown weight layout 'bert'; expected pytorch, llama, gpt2 or attn-only", mha::Error);
  CHECK(mha::whole_model_layout_names() == "gpt2 or attn-only");
  mha::Config rope;
  rope.heads = 2, rope.rope_base = 10000;
  for (const char* plain : {"pytorch", "gpt2", "attn-only"}) {
    CAPTURE(plain);
    CHECK_THROWS_WITH_AS(mha::Model::from_safetensors(rope, bytes.data(), bytes.size(), mha::parse_layout(plain), 0),
                         ("a RoPE base goes with llama-layout weights; " + std::string(plain) +
                          " attention has no rotary position embeddings").c_str(),
                         mha::Error);
  }
}

TEST_CASE("a recall model's file says task recall and its K, and reads back with its K readouts") {
  mha::Config c = blocks_config(mha::Preset::attn_only, 1);
  c.readouts = 4;
  const mha::Model model(c);
  const std::vector<uint8_t> bytes = mha::write_model(model.model_weights(), c);
  const mha::SafetensorsFile file(bytes.data(), bytes.size());
  CHECK(file.metadata().at("task") == "recall");
  CHECK(file.metadata().at("recall") == "4");
  CHECK(file.entry("lm_head.weight").shape == Shape{4 * 32, 16});
  const mha::LoadedModel loaded = mha::read_model(file, mha::Preset::attn_only, 0);
  CHECK(loaded.config.readouts == 4);
  check_same_parameters(mha::unpack_model(loaded.weights, loaded.config), model.model_weights(), c);
  CHECK(mha::parameter_count(c) == 32 * 16 + 24 * 16 + 4 * 16 * 16 + 4 * 16 + 4 * 32 * 16);  // wte wpe, W/b of q k v o, lm_head
  // A next-token model's file says neither; a K the lm_head does not have is a shape error.
  mha::Config one = c;
  one.readouts = 1;
  const std::vector<uint8_t> plain = mha::write_model(mha::Model(one).model_weights(), one);
  CHECK(mha::SafetensorsFile(plain.data(), plain.size()).metadata().count("task") == 0);
  std::vector<uint8_t> wrong = bytes;
  const std::string from = "\"recall\":\"4\"", to = "\"recall\":\"2\"";
  const auto at = std::search(wrong.begin(), wrong.end(), from.begin(), from.end());
  REQUIRE(at != wrong.end());
  std::copy(to.begin(), to.end(), at);
  CHECK_THROWS_WITH_AS(mha::read_model(mha::SafetensorsFile(wrong.data(), wrong.size()), mha::Preset::attn_only, 0),
                       doctest::Contains("'lm_head.weight' has shape (128, 16); expected (64, 16)"), mha::Error);
  // Readouts need an untied unembedding of a model with blocks.
  mha::Config tied = blocks_config(mha::Preset::gpt2);
  tied.readouts = 2;
  CHECK_THROWS_WITH_AS(mha::validate_config(tied), doctest::Contains("readouts need an untied unembedding"), mha::Error);
  c.readouts = 17;
  CHECK_THROWS_WITH_AS(mha::validate_config(c), doctest::Contains("readouts must be between 1 and 16"), mha::Error);
}

TEST_CASE("a model keeps each matrix once, packed, and gives every parameter back bit for bit") {
  // d_model 24, 2 key/value heads and a vocabulary of 37: widths that are no multiple of the packing's
  // panels, and W_K, W_V narrower than W_Q in the stacked Q | K | V packing.
  for (mha::Preset preset : {mha::Preset::attn_only, mha::Preset::gpt2, mha::Preset::single}) {
    CAPTURE(mha::preset_name(preset));
    mha::Config c = blocks_config(preset, 2, 24, 4, 37);
    c.kv_heads = 2;
    mha::ModelWeights drawn;
    if (mha::has_blocks(preset)) {
      drawn = mha::random_weights(c, 0.02f);
    } else {
      c.layers = 1;
      drawn.blocks.resize(1);
      drawn.blocks[0].attention = mha_test::random_attention(c);
      drawn.token_table = mha::Tensor({37, 24}, std::vector<float>(37 * 24, 0.5f));  // a single layer's table stays a tensor
    }
    const mha::PackedModel packed = mha::pack_model(drawn, c);
    for (const mha::BlockWeights& b : packed.rest.blocks) {
      for (const mha::Tensor* m : {&b.attention.w_q, &b.attention.w_k, &b.attention.w_v, &b.attention.w_o, &b.w_fc, &b.w_proj})
        CHECK(m->data.empty());
      CHECK(b.attention.b_k.numel() == 12);
    }
    CHECK(packed.rest.unembedding.data.empty());
    CHECK(packed.rest.token_table.data.empty() == (preset == mha::Preset::gpt2));  // tied: wte is the packed unembedding
    CHECK(packed.packed.unembedding.n == (mha::has_blocks(preset) ? 37 : 0));

    const mha::ModelWeights back = mha::unpack_model(packed, c);
    check_same_parameters(back, drawn, c);
    CHECK(back.token_table.data == drawn.token_table.data);
  }
}

TEST_CASE("a NaN or infinity in a whole model's file names the file's tensor and the value's index in it") {
  const mha::Config c = blocks_config(mha::Preset::gpt2);
  const std::vector<uint8_t> good = mha::write_model(mha::Model(c).model_weights(), c);
  const mha::SafetensorsFile file(good.data(), good.size());
  // c_attn.weight goes into a packing as it is (Conv1D), wte transposed into one, c_fc.bias into a tensor.
  for (const auto& one : {std::pair<std::string, size_t>{"h.1.attn.c_attn.weight", 37}, {"wte.weight", 100},
                                {"h.0.mlp.c_fc.bias", 63}}) {
    const std::string& name = one.first;
    const size_t at = one.second;
    CAPTURE(name);
    for (const float bad : {std::nanf(""), -INFINITY}) {
      mha::SafetensorsWriter out;
      for (const std::string& n : file.names()) {
        mha::Tensor t = file.read_float(n);
        if (n == name) t.data[at] = bad;
        out.add(n, t);
      }
      out.set_metadata("heads", "4");
      const std::vector<uint8_t> bytes = out.bytes();
      CHECK_THROWS_WITH_AS(mha::Model::from_model_file(bytes.data(), bytes.size(), mha::WeightLayout::gpt2, 0),
                           ("the file: tensor '" + name + "' contains " + (std::isnan(bad) ? "NaN" : "infinity") +
                            " at flat index " + std::to_string(at))
                               .c_str(),
                           mha::Error);
    }
  }
}

TEST_CASE("a model built from its header and then its tensors in pieces is read_model's model") {
  const mha::Config c = blocks_config(mha::Preset::gpt2);
  const std::vector<uint8_t> plain = mha::write_model(mha::Model(c).model_weights(), c);
  // Hugging Face's checkpoints carry attn.bias mask buffers the model never reads.
  const mha::SafetensorsFile plain_file(plain.data(), plain.size());
  mha::SafetensorsWriter with_mask;
  for (const std::string& name : plain_file.names()) with_mask.add(name, plain_file.read_float(name));
  with_mask.add("h.0.attn.bias", mha::Tensor({1, 1, 24, 24}));
  with_mask.set_metadata("heads", "4");
  const std::vector<uint8_t> bytes = with_mask.bytes();
  const mha::SafetensorsFile file(bytes.data(), bytes.size());

  // Only the header in hand, as the page has it after its first read.
  const mha::SafetensorsHeader header(bytes.data(), file.data_begin(), bytes.size());
  mha::ModelBuilder builder(header, mha::Preset::gpt2, 0);
  size_t sum = 0, last_begin = 0;
  for (const mha::TensorRead& r : builder.needed()) {
    CHECK(r.name != "h.0.attn.bias");
    CHECK(r.begin >= last_begin);  // file order
    last_begin = r.begin, sum += r.end - r.begin;
  }
  CHECK(builder.needed().size() == plain_file.names().size());
  CHECK(builder.needed_bytes() == sum);
  CHECK_THROWS_WITH_AS(builder.add("h.0.attn.bias", bytes.data(), 4), doctest::Contains("does not use a tensor 'h.0.attn.bias'"), mha::Error);
  SUBCASE("pieces of 12 bytes give the same weights") {
    for (const mha::TensorRead& r : builder.needed())
      for (size_t at = r.begin; at < r.end; at += 12) builder.add(r.name, bytes.data() + at, std::min<size_t>(12, r.end - at));
    const mha::LoadedModel built = builder.finish();
    const mha::LoadedModel read = mha::read_model(file, mha::Preset::gpt2, 0);
    CHECK(built.config.layers == read.config.layers);
    check_same_parameters(mha::unpack_model(built.weights, built.config), mha::unpack_model(read.weights, read.config),
                          read.config);
  }
  SUBCASE("a tensor not given, or given past its end, is an error") {
    const mha::TensorRead& first = builder.needed().front();
    CHECK_THROWS_WITH_AS(builder.add(first.name, bytes.data(), first.end - first.begin + 4), doctest::Contains("do not fit"), mha::Error);
    CHECK_THROWS_WITH_AS(builder.add(first.name, bytes.data(), 3), doctest::Contains("in whole values"), mha::Error);
    CHECK_THROWS_WITH_AS(builder.finish(), doctest::Contains("is incomplete: 0 of its"), mha::Error);
  }
}

TEST_CASE("a switched-off head writes zeros, and only its own") {
  const mha::Config c = blocks_config(mha::Preset::attn_only);
  const mha::Model model(c);
  const std::vector<int32_t> ids = {0, 4, 9, 4, 9, 1};
  const mha::Trace on = model.run_ids(ids);
  mha::HeadGates off(2, std::vector<float>(4, 1.0f));
  off[1][2] = 0.0f;
  const mha::Trace ablated = model.run_ids(ids, mha::KernelPath::simd, off);
  const mha::Tensor& head_out = ablated.get("layers.1.head_out");
  const size_t per_head = head_out.numel() / 4;
  for (size_t i = 0; i < head_out.numel(); ++i) {
    if (i / per_head == 2) CHECK(head_out.data[i] == 0.0f);
    else CHECK(head_out.data[i] == on.get("layers.1.head_out").data[i]);
  }
  CHECK(ablated.get("layers.0.y").data == on.get("layers.0.y").data);  // layer 0 is untouched
  CHECK(ablated.get("logits").data != on.get("logits").data);
}

TEST_CASE("bad input to a model is one clear error") {
  const mha::Config c = blocks_config(mha::Preset::gpt2);
  const mha::Model model(c);
  CHECK_THROWS_WITH_AS(model.run_ids({1, 32}), doctest::Contains("token id 32 at position 1 is outside the vocabulary [0, 32)"), mha::Error);
  CHECK_THROWS_WITH_AS(model.run_ids(std::vector<int32_t>(25, 1)), doctest::Contains("25 tokens, but the model has only 24 positions"), mha::Error);
  CHECK_THROWS_WITH_AS(model.run_ids({}), doctest::Contains("at least one token"), mha::Error);
  // Random weights read text by first appearance; a GPT-2 file needs GPT-2's own tokenizer.
  CHECK(model.run_text("hello world hello").ids == std::vector<int32_t>{0, 1, 2, 1});
  {
    const std::vector<uint8_t> file = mha::write_model(model.model_weights(), c);
    const mha::Model loaded = mha::Model::from_model_file(file.data(), file.size(), mha::WeightLayout::gpt2, 4);
    CHECK_THROWS_WITH_AS(loaded.run_text("hello"), doctest::Contains("its own tokenizer"), mha::Error);
  }
  CHECK_THROWS_WITH_AS(model.run_input(mha::Tensor({1, 2, 16})), doctest::Contains("starts from token ids"), mha::Error);

  SUBCASE("files") {
    std::vector<uint8_t> bytes = mha::write_model(model.model_weights(), c);
    const mha::SafetensorsFile good(bytes.data(), bytes.size());
    // A file whose layer 1 lacks its MLP.
    mha::SafetensorsWriter missing;
    for (const std::string& name : good.names())
      if (name != "h.1.mlp.c_fc.weight") missing.add(name, good.read_float(name));
    missing.set_metadata("heads", "4");
    const std::vector<uint8_t> m = missing.bytes();
    CHECK_THROWS_WITH_AS(mha::Model::from_model_file(m.data(), m.size(), mha::WeightLayout::gpt2, 0),
                         doctest::Contains("no tensor 'h.1.mlp.c_fc.weight'"), mha::Error);
    // Layer 1 narrower than layer 0.
    mha::SafetensorsWriter narrow;
    for (const std::string& name : good.names())
      narrow.add(name, name == "h.1.attn.c_proj.weight" ? mha::Tensor({8, 8}) : good.read_float(name));
    narrow.set_metadata("heads", "4");
    const std::vector<uint8_t> n = narrow.bytes();
    CHECK_THROWS_WITH_AS(mha::Model::from_model_file(n.data(), n.size(), mha::WeightLayout::gpt2, 0),
                         doctest::Contains("'h.1.attn.c_proj.weight' has shape (8, 8); expected (16, 16)"), mha::Error);
    CHECK_THROWS_WITH_AS(mha::Model::from_model_file(bytes.data(), bytes.size(), mha::WeightLayout::gpt2, 3),
                         doctest::Contains("not divisible by heads 3"), mha::Error);
  }
  SUBCASE("switching off a head the model does not have") {
    mha::HeadGates off(3, std::vector<float>(4, 1.0f));
    CHECK_THROWS_AS(model.run_ids({1}, mha::KernelPath::simd, off), mha::Error);
  }
}

// A copy of `good` without the tensors in `drop`, with `add` added and every name but lm_head under `prefix`
// (Hugging Face nests the body under "transformer." and leaves lm_head at the top).
static std::vector<uint8_t> edited_model(const std::vector<uint8_t>& good, const std::vector<std::string>& drop,
                                  const std::vector<std::string>& add = {}, const std::string& prefix = "") {
  const mha::SafetensorsFile file(good.data(), good.size());
  mha::SafetensorsWriter out;
  for (const std::string& name : file.names())
    if (std::find(drop.begin(), drop.end(), name) == drop.end())
      out.add(name == "lm_head.weight" ? name : prefix + name, file.read_float(name));
  for (const std::string& name : add) out.add(prefix + name, mha::Tensor({16}));
  out.set_metadata("heads", "4");
  return out.bytes();
}

TEST_CASE("a broken model file is an error naming the tensor or block, never a shorter model") {
  for (mha::Preset preset : {mha::Preset::attn_only, mha::Preset::gpt2}) {
    CAPTURE(mha::preset_name(preset));
    const mha::Config c = blocks_config(preset, 3);
    const std::vector<uint8_t> good = mha::write_model(mha::Model(c).model_weights(), c);
    const mha::WeightLayout layout = mha::whole_model_layout(preset);
    const auto load_error = [&](const std::vector<uint8_t>& bytes) {
      try {
        mha::Model::from_model_file(bytes.data(), bytes.size(), layout, 0);
      } catch (const mha::Error& e) {
        return std::string(e.what());
      }
      return std::string("loaded");
    };
    for (const std::string prefix : {"", "transformer."}) {
      CAPTURE(prefix);
      const std::string h = prefix + "h.";
      if (!prefix.empty()) CHECK(load_error(edited_model(good, {}, {}, prefix)) == "loaded");
      SUBCASE("layer 1 without its c_attn.weight") {
        CHECK(load_error(edited_model(good, {"h.1.attn.c_attn.weight"}, {}, prefix)) ==
              "the file has no tensor '" + h + "1.attn.c_attn.weight'");
      }
      SUBCASE("blocks 0 and 2, no block 1") {
        std::vector<std::string> block_1;
        const mha::SafetensorsFile file(good.data(), good.size());
        for (const std::string& name : file.names())
          if (name.rfind("h.1.", 0) == 0) block_1.push_back(name);
        CHECK(load_error(edited_model(good, block_1, {}, prefix)) ==
              "the file has block 2 but no tensor of block 1 ('" + h + "1.…')");
      }
      SUBCASE("a stray tensor of a block past the last") {
        // block 3's first tensor in the parameter table that the file lacks
        const std::string first = preset == mha::Preset::gpt2 ? "3.ln_1.bias" : "3.attn.c_attn.weight";
        CHECK(load_error(edited_model(good, {}, {"h.3.ln_1.weight"}, prefix)) == "the file has no tensor '" + h + first + "'");
      }
      SUBCASE("a missing bias is not a zero bias") {
        CHECK(load_error(edited_model(good, {"h.2.attn.c_proj.bias"}, {}, prefix)) == "the file has no tensor '" + h + "2.attn.c_proj.bias'");
        CHECK(load_error(edited_model(good, {"h.0.attn.c_attn.bias"}, {}, prefix)) == "the file has no tensor '" + h + "0.attn.c_attn.bias'");
        if (preset == mha::Preset::gpt2)
          CHECK(load_error(edited_model(good, {"h.1.mlp.c_fc.bias"}, {}, prefix)) == "the file has no tensor '" + h + "1.mlp.c_fc.bias'");
      }
    }
  }
}

TEST_CASE("first-appearance ids: the start token, then 1, 2, 3 … for each new piece") {
  mha::Config c = blocks_config(mha::Preset::attn_only, 2, 16, 4, 8);
  const mha::Model model(c);
  const mha::Trace t = model.run_text("我是秦始皇，我是秦始皇");
  CHECK(t.ids == std::vector<int32_t>{0, 1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5});
  CHECK(t.tokens.front() == "<s>");
  CHECK(t.tokens[1] == "我");
  CHECK_THROWS_WITH_AS(model.run_text("a b c d e f g h"), doctest::Contains("more than 7 different tokens"), mha::Error);
}

TEST_CASE("one trace refilled by models of other kinds, in turn, holds each run whole") {
  mha::Config single;
  single.d_model = 16, single.heads = 2;
  const mha::Model a(single), b(blocks_config(mha::Preset::gpt2, 3)), c(blocks_config(mha::Preset::attn_only));
  mha::Trace trace;
  for (int round = 0; round < 2; ++round) {
    b.run_ids_into(trace, {1, 2, 3});
    CHECK(trace.entries().size() == mha::model_trace_size(b.config()));
    a.run_text_into(trace, "one two");
    CHECK(trace.entries().size() == 16);
    c.run_ids_into(trace, {0, 1});
    CHECK(trace.entries().size() == mha::model_trace_size(c.config()));
    CHECK(trace.get("logits").data == c.run_ids({0, 1}).get("logits").data);
  }
}

TEST_CASE("a second run of the same size into the same trace allocates nothing") {
  for (mha::Preset preset : {mha::Preset::attn_only, mha::Preset::gpt2}) {
    CAPTURE(mha::preset_name(preset));
    const mha::Model model(blocks_config(preset));
    mha::Trace trace;
    const auto storage = [&] {  // where every tensor's values live, and the entries themselves
      std::vector<const void*> at = {trace.entries().data(), trace.ids.data()};
      for (const mha::TraceEntry& e : trace.entries()) at.push_back(e.tensor.data.data());
      return at;
    };
    model.run_ids_into(trace, {1, 2, 3, 4, 5});
    const std::vector<const void*> first = storage();
    const std::vector<float> first_logits = trace.get("logits").data;
    model.run_ids_into(trace, {9, 8, 7, 6, 5});  // other ids, the same T: new values in the same places
    CHECK(storage() == first);
    CHECK(trace.get("logits").data != first_logits);
    CHECK(trace.get("logits").data == model.run_ids({9, 8, 7, 6, 5}).get("logits").data);
  }
}

TEST_CASE("a run of the blocks only makes every block's tensors as the whole run does, and nothing after them") {
  for (mha::Preset preset : {mha::Preset::attn_only, mha::Preset::gpt2}) {
    CAPTURE(mha::preset_name(preset));
    const mha::Model model(blocks_config(preset, 2));
    const mha::Trace whole = model.run_ids({1, 2, 3, 4, 5});
    mha::Trace blocks;
    model.run_ids_into(blocks, {9, 8, 7});  // a trace that held a whole run keeps none of it
    model.run_blocks_into(blocks, {1, 2, 3, 4, 5});
    for (const char* after : {"ln_f", "logits", "probs"}) CHECK_FALSE(blocks.has(after));
    size_t compared = 0;
    for (const mha::TraceEntry& e : whole.entries()) {
      if (e.stage == mha::Stage::ln_f || e.stage == mha::Stage::logits || e.stage == mha::Stage::predict) continue;
      CAPTURE(e.name);
      REQUIRE(blocks.has(e.name));
      CHECK(blocks.get(e.name).data == e.tensor.data);
      ++compared;
    }
    CHECK(compared == blocks.entries().size());
  }
}

TEST_CASE("trace_floats counts what a run records, every tensor of every layer") {
  for (mha::Preset preset : {mha::Preset::attn_only, mha::Preset::gpt2}) {
    const mha::Config c = blocks_config(preset, 3);
    const mha::Trace t = mha::Model(c).run_ids({1, 2, 3, 4, 5});
    int64_t total = 0;
    for (const mha::TraceEntry& e : t.entries()) total += static_cast<int64_t>(e.tensor.numel());
    CHECK(mha::trace_floats(c, 5) == total);
  }
}

TEST_CASE("trace_floats for training counts what a training step records: no tensor made when read") {
  for (mha::Preset preset : {mha::Preset::attn_only, mha::Preset::gpt2}) {
    const mha::Config c = blocks_config(preset, 3);
    mha::Trainer trainer(c, mha::random_weights(c, 0.1f), {});
    const int B = 2, T = 5;
    const std::vector<int32_t> ids = {1, 2, 3, 4, 5, 5, 4, 3, 2, 1};
    const std::vector<int32_t> targets = {2, 3, 4, 5, -1, 4, 3, 2, 1, -1};
    trainer.loss_and_gradients(ids, targets, B, T);
    int64_t total = 0;
    for (const mha::TraceEntry& e : trainer.activations().entries()) total += static_cast<int64_t>(e.tensor.numel());
    CHECK(B * mha::trace_floats(c, T, /*training=*/true) == total);
    CHECK(mha::trace_floats(c, T, true) < mha::trace_floats(c, T));  // head_write is not made
  }
}

TEST_CASE("finite weights that overflow float32 inside a run make it fail, naming the first tensor that overflowed") {
  const mha::Config c = blocks_config(mha::Preset::attn_only);
  mha::ModelWeights w = mha::Model(c).model_weights();
  const std::vector<int32_t> ids = {0, 5, 9, 5, 7, 1};
  const auto error_of = [&](const mha::ModelWeights& weights) {
    try {
      mha::Model::from_weights(c, weights).run_ids(ids);
    } catch (const mha::Error& e) {
      return e.code() + " " + e.params().at("tensor");
    }
    return std::string("(no error)");
  };
  CHECK(error_of(w) == "(no error)");
  SUBCASE("W_K near float32's largest: k overflows") {
    std::fill(w.token_table.data.begin(), w.token_table.data.end(), 1.0f);
    std::fill(w.blocks[0].attention.w_k.data.begin(), w.blocks[0].attention.w_k.data.end(), 3e38f);
    CHECK(error_of(w) == "run_not_finite layers.0.k");
  }
  SUBCASE("W_O: the residual stream overflows, seen first in the next layer's scores or y") {
    for (size_t i = 0; i < 3; ++i) w.blocks[0].attention.w_o.data[i * 7] = 3e38f;
    CHECK(error_of(w).rfind("run_not_finite layers.", 0) == 0);
  }
  SUBCASE("the masked future scores, made only when read, are checked when made") {
    // Token 1's query and token 2's key are 1e20 in the dimensions W_Q and W_K read: only q_0·k_1,
    // hidden by the mask, overflows, so the run itself is finite.
    const mha::Config one = blocks_config(mha::Preset::attn_only, 1);
    mha::ModelWeights m = mha::Model(one).model_weights();
    const int d = one.d_model, half = d / 2;
    mha::AttentionWeights& a = m.blocks[0].attention;
    std::fill(a.w_q.data.begin(), a.w_q.data.end(), 0.0f);
    std::fill(a.w_k.data.begin(), a.w_k.data.end(), 0.0f);
    for (int r = 0; r < half; ++r) a.w_q.data[r * d + r] = 1.0f, a.w_k.data[r * d + half + r] = 1.0f;
    for (int i = 0; i < half; ++i) m.token_table.data[1 * d + i] = 1e20f, m.token_table.data[2 * d + half + i] = 1e20f;
    const mha::Trace t = mha::Model::from_weights(one, m).run_ids({1, 2});
    CHECK_THROWS_WITH_AS(
        t.get("layers.0.raw_scores"),
        doctest::Contains("the numbers of this run overflowed: layers.0.raw_scores has a value that is not finite"),
        mha::Error);
    CHECK_THROWS_AS(t.get("layers.0.raw_scores"), mha::Error);  // still not made, so it says so again
  }
}
// A Hugging Face checkpoint: the same tensors with only {"format": "pt"} in its __metadata__.
std::vector<uint8_t> as_hugging_face(const std::vector<uint8_t>& ours) {
  const mha::SafetensorsFile file(ours.data(), ours.size());
  mha::SafetensorsWriter out;
  for (const std::string& n : file.names()) out.add(n, file.read_float(n));
  out.set_metadata("format", "pt");
  return out.bytes();
}

TEST_CASE("a GPT-2 checkpoint that does not say its heads: d_model / 64, config.json's n_head, or the caller's") {
  const mha::Config c = blocks_config(mha::Preset::gpt2, 2, 128, 4, 32);
  const std::vector<uint8_t> bytes = as_hugging_face(mha::write_model(mha::Model(c).model_weights(), c));
  const mha::SafetensorsFile file(bytes.data(), bytes.size());
  SUBCASE("nothing says: every GPT-2 size has d_head 64") {
    const mha::Model m = mha::Model::from_model_file(bytes.data(), bytes.size(), mha::WeightLayout::gpt2, 0);
    CHECK(m.config().heads == 128 / mha::kGpt2DHead);
    CHECK(m.facts().heads_from == "gpt2-d-head");
  }
  SUBCASE("config.json's n_head, its sizes checked against the file") {
    const mha::ModelConfigFile hf = mha::parse_config_json(R"({"n_head": 4, "n_layer": 2, "n_embd": 128, "n_positions": 24,
        "vocab_size": 32, "architectures": ["GPT2LMHeadModel"], "n_inner": null})");
    const mha::Model m = mha::Model::from_model_file(bytes.data(), bytes.size(), mha::WeightLayout::gpt2, 0, mha::kUnnamedFile, &hf);
    CHECK(m.config().heads == 4);
    CHECK(m.facts().heads_from == "config.json");
    CHECK(mha::Model::from_model_file(bytes.data(), bytes.size(), mha::WeightLayout::gpt2, 8, mha::kUnnamedFile, &hf).facts().heads_from == "given");
    for (const auto& one : {std::pair<const char*, const char*>{R"({"n_layer": 12})", "n_layer 12 but the file has 2:"},
                           {R"({"n_embd": 768})", "n_embd 768"},
                           {R"({"vocab_size": 50257})", "vocab_size 50257"},
                           {R"({"n_positions": 1024})", "n_positions 1024"}}) {
      const char* text = one.first;
      const char* says = one.second;
      CAPTURE(text);
      const mha::ModelConfigFile other = mha::parse_config_json(text);
      CHECK_THROWS_WITH_AS(mha::read_model(file, mha::Preset::gpt2, 0, &other), doctest::Contains(says), mha::Error);
    }
    const mha::ModelConfigFile odd = mha::parse_config_json(R"({"n_head": 3})");
    CHECK_THROWS_WITH_AS(mha::read_model(file, mha::Preset::gpt2, 0, &odd), doctest::Contains("divisible"), mha::Error);
  }
  SUBCASE("a config.json that is not one") {
    for (const char* text : {"", "[1, 2]", "{\"n_head\": 0}", "{\"n_head\": 2.5}", "{\"n_head\": \"12\"}", "{\"n_head\": 1e12}"}) {
      CAPTURE(text);
      CHECK_THROWS_WITH_AS(mha::parse_config_json(text, "gpt2/config.json"), doctest::Contains("gpt2/config.json"), mha::Error);
    }
  }
  SUBCASE("d_model that is no multiple of 64, or an attn-only file: it must be told") {
    const mha::Config narrow = blocks_config(mha::Preset::gpt2, 1, 48, 4, 32);
    const std::vector<uint8_t> b = as_hugging_face(mha::write_model(mha::Model(narrow).model_weights(), narrow));
    CHECK_THROWS_WITH_AS(mha::Model::from_model_file(b.data(), b.size(), mha::WeightLayout::gpt2, 0),
                         doctest::Contains("does not say how many heads"), mha::Error);
    const mha::Config attn = blocks_config(mha::Preset::attn_only, 1, 128, 4, 32);
    const std::vector<uint8_t> a = as_hugging_face(mha::write_model(mha::Model(attn).model_weights(), attn));
    CHECK_THROWS_WITH_AS(mha::Model::from_model_file(a.data(), a.size(), mha::WeightLayout::attn_only, 0),
                         doctest::Contains("does not say how many heads"), mha::Error);
  }
}

TEST_CASE("a model's facts say what it is, whichever way it was made") {
  const auto facts = [](const mha::Model& m) {
    const mha::ModelFacts f = m.facts();
    return std::string(f.loaded ? "loaded" : "seeded") + " " + f.layout + "|" + f.task + "|" + f.tokenizer + "|" + f.token_table + "|" +
           f.positions + "|" + (f.biases ? "biases" : "none") + "|" + f.heads_from;
  };
  CHECK(facts(mha::Model(mha::Config{})) == "seeded ||hashed|scaled|sinusoidal|biases|given");
  const std::string llama = mha_test::reference_dir() + "/llama_gqa.weights.safetensors";
  const std::vector<uint8_t> layer = mha::read_file(llama);
  mha::Config eight;
  eight.heads = 8;
  CHECK(facts(mha::Model::from_safetensors(eight, layer.data(), layer.size(), mha::WeightLayout::llama, 0)) ==
        "loaded llama||hashed|scaled|sinusoidal|none|given");
  const mha::Config g = blocks_config(mha::Preset::gpt2, 2, 128, 4, 32);
  const mha::Model seeded(g);
  CHECK(facts(seeded) == "seeded ||first-appearance|table|table|biases|given");
  const std::vector<uint8_t> hf = as_hugging_face(mha::write_model(seeded.model_weights(), g));
  mha::Model opened = mha::Model::from_model_file(hf.data(), hf.size(), mha::WeightLayout::gpt2, 0);
  CHECK(facts(opened) == "loaded gpt2|||table|table|biases|gpt2-d-head");
  mha::Config fewer = opened.config();
  fewer.heads = 8;
  opened.configure(fewer);  // a heads control: the weights allow it
  CHECK(facts(opened) == "loaded gpt2|||table|table|biases|given");

  mha::Recipe r = mha::induction_recipe();
  r.config.layers = 2, r.config.d_model = 16, r.config.heads = 2, r.config.vocab_size = 20;
  const mha::Training training(r);
  const std::vector<uint8_t> trained = mha::write_model(training.trainer().weights(), r.config, mha::training_metadata(training.recipe(), 0));
  CHECK(facts(mha::Model::from_model_file(trained.data(), trained.size(), mha::WeightLayout::attn_only, 0)) ==
        "loaded attn-only|induction|first-appearance|table|table|biases|metadata");
}
