#include "fuzz_targets.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "base/error.h"
#include "base/random.h"
#include "io/model_builder.h"
#include "io/model_file.h"
#include "io/safetensors.h"
#include "model/model.h"
#include "text/bpe_files.h"

namespace mha_fuzz {

namespace {

// Runs f; an mha::Error is the expected answer to a bad input, and its message must be one line.
template <class F>
bool refused(F&& f, std::string* message = nullptr) {
  try {
    f();
    return false;
  } catch (const mha::Error& e) {
    if (std::strchr(e.what(), '\n')) {
      std::fprintf(stderr, "an error message of two lines: %s\n", e.what());
      std::abort();
    }
    if (message) *message = e.what();
    return true;
  }
}

void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "%s: %s\n", what, detail.c_str());
  std::abort();
}

// A short run of a loaded model, so what the readers accept is usable: ids 0 and 1 where they exist.
void run_briefly(const mha::Model& model) {
  refused([&] { model.run_ids({0, model.config().vocab_size > 1 ? 1 : 0}); });
}

}  // namespace

void safetensors_header(const uint8_t* data, size_t size) {
  refused([&] {
    const mha::SafetensorsFile file(data, size, "fuzz.safetensors");
    for (const std::string& name : file.names()) {
      refused([&] { file.read_float(name); });
      refused([&] { file.read_int(name); });
    }
    refused([&] { mha::guess_layout(file); });
  });
  // The header alone, as the page hands it over: the file's first bytes and its whole size.
  if (size > 16) refused([&] { mha::SafetensorsHeader(data, size / 2, size, "half.safetensors"); });
}

void model_file(const uint8_t* data, size_t size) {
  for (const mha::LayoutSpec& l : mha::kLayouts)
    if (l.whole_model)
      refused([&] { run_briefly(mha::Model::from_model_file(data, size, l.layout, 0, "fuzz.safetensors")); });
  mha::Config base;
  base.heads = 1;
  for (mha::WeightLayout layout : {mha::WeightLayout::pytorch, mha::WeightLayout::llama, mha::WeightLayout::gpt2})
    refused([&] { run_briefly(mha::Model::from_safetensors(base, data, size, layout, 0, "fuzz.safetensors")); });
}

void model_builder(const uint8_t* data, size_t size) {
  if (size < 1) return;
  const uint64_t seed = data[0];
  ++data, --size;
  std::string one_shot_error, streamed_error;
  mha::LoadedModel one_shot, streamed;
  const mha::Preset preset = seed & 1 ? mha::Preset::gpt2 : mha::Preset::attn_only;
  const bool one_shot_refused = refused(
      [&] {
        const mha::SafetensorsFile file(data, size);
        one_shot = mha::read_model(file, preset, 0);
      },
      &one_shot_error);
  const bool streamed_refused = refused(
      [&] {
        // the header from the file's first 8 + N bytes only, as the page reads it
        uint64_t n = 0;
        for (int i = 7; i >= 0 && size >= 8; --i) n = (n << 8) | data[i];
        const size_t prefix = size >= 8 && n <= size - 8 ? static_cast<size_t>(8 + n) : size;
        const mha::SafetensorsHeader header(data, prefix, size);
        mha::ModelBuilder builder(header, preset, 0);
        mha::Rng rng(seed);
        for (const mha::TensorRead& r : builder.needed()) {
          const size_t width = r.dtype == "F32" ? 4 : 2;
          for (size_t at = r.begin; at < r.end;) {
            const size_t values = 1 + rng.next_u32() % 64, piece = std::min(values * width, r.end - at);
            builder.add(r.name, data + at, piece);
            at += piece;
          }
        }
        streamed = builder.finish();
      },
      &streamed_error);
  if (one_shot_refused != streamed_refused || one_shot_error != streamed_error)
    fail("read_model and the streamed ModelBuilder disagree", "'" + one_shot_error + "' vs '" + streamed_error + "'");
  if (one_shot_refused) return;
  const mha::Config &a = one_shot.config, &b = streamed.config;
  if (a.layers != b.layers || a.d_model != b.d_model || a.heads != b.heads || a.vocab_size != b.vocab_size ||
      a.max_positions != b.max_positions)
    fail("read_model and the streamed ModelBuilder disagree", "on the config");
  const mha::ModelWeights wa = mha::unpack_model(one_shot.weights, a), wb = mha::unpack_model(streamed.weights, b);
  std::vector<const mha::Tensor*> ta;
  mha::for_each_parameter(
      wa, a, [&](const std::string&, const mha::ParameterSpec&, const mha::Tensor& t) { ta.push_back(&t); });
  size_t i = 0;
  mha::for_each_parameter(wb, b, [&](const std::string& name, const mha::ParameterSpec&, const mha::Tensor& t) {
    if (t.shape != ta[i]->shape || std::memcmp(t.ptr(), ta[i]->ptr(), t.numel() * sizeof(float)) != 0)
      fail("read_model and the streamed ModelBuilder disagree", "on " + name);
    ++i;
  });
  run_briefly(mha::Model::from_loaded(std::move(streamed)));
}

void bpe_files(const uint8_t* data, size_t size) {
  if (size < 1) return;
  const bool single = data[0] % 2 == 1;
  std::vector<std::vector<uint8_t>> parts(1);
  for (size_t i = 1; i < size; ++i) {
    if (i + 2 < size && data[i] == 0xFF && data[i + 1] == 0xFE && data[i + 2] == 0xFD) {
      parts.emplace_back();
      i += 2;
      continue;
    }
    parts.back().push_back(data[i]);
  }
  const size_t files = single ? 1 : 2;
  parts.resize(files + 1);  // the text last; a part not given is empty
  const std::string text(parts[files].begin(), parts[files].end());
  refused([&] {
    const auto tokenizer = single ? mha::bpe_from_tokenizer_json(parts[0], "tokenizer.json")
                                  : mha::bpe_from_vocab_and_merges(parts[0], "encoder.json", parts[1], "vocab.bpe");
    refused([&] { tokenizer->tokenize(text); });
    for (int32_t id : {0, 1, 255, 256, tokenizer->vocab_size() - 1, tokenizer->vocab_size()}) tokenizer->token_text(id);
  });
}

const std::vector<Target>& targets() {
  static const std::vector<Target> all = {{"safetensors_header", safetensors_header},
                                          {"model_file", model_file},
                                          {"model_builder", model_builder},
                                          {"bpe_files", bpe_files}};
  return all;
}

}  // namespace mha_fuzz
