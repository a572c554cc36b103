// Golden values from PyTorch. tests/reference/make_reference.py (run with Debian's python3-torch)
// wrote each case's weights, input and every expected intermediate; see tests/reference/README.md.
// Each case runs on both kernel paths and every tensor must match to 1e-5 of its largest magnitude,
// with masked (-inf) scores in the same places.
#include <doctest/doctest.h>

#include <map>
#include <string>

#include "base/error.h"
#include "model/model.h"
#include "io/files.h"
#include "io/safetensors.h"
#include "test_helpers.h"

namespace {

const char* const kCases[] = {"pytorch_mha", "pytorch_causal", "pytorch_large",
                              "gpt2_layer1", "llama_gqa",      "llama_mqa_layer0"};
// Every case has these; the llama cases add q_rot and k_rot (RoPE), and every tensor a file has is compared.
const char* const kStageTensors[] = {"q",      "k",       "v",        "q_heads", "k_heads", "v_heads",
                                     "scores", "weights", "head_out", "concat",  "y"};

std::vector<uint8_t> read_case_file(const std::string& name) {
  const std::string path = mha_test::reference_dir() + "/" + name;
  try {
    return mha::read_file(path);
  } catch (const mha::Error&) {
    FAIL("missing reference file " << path
                                   << "; regenerate with: /usr/bin/python3 tests/reference/make_reference.py");
  }
  return {};
}

}  // namespace

TEST_CASE("every stage matches PyTorch on every reference case and kernel path") {
  for (const char* name : kCases) {
    CAPTURE(name);
    const auto weight_bytes = read_case_file(std::string(name) + ".weights.safetensors");
    const auto input_bytes = read_case_file(std::string(name) + ".input.safetensors");
    const auto expected_bytes = read_case_file(std::string(name) + ".expected.safetensors");
    const mha::SafetensorsFile input(input_bytes.data(), input_bytes.size());
    const mha::SafetensorsFile expected(expected_bytes.data(), expected_bytes.size());
    const auto& meta = expected.metadata();
    REQUIRE(meta.at("format_version") == "1");

    mha::Config config;
    config.heads = std::stoi(meta.at("heads"));
    config.causal = meta.at("causal") == "true";
    const mha::Model model = mha::Model::from_safetensors(config, weight_bytes.data(), weight_bytes.size(),
                                                          mha::parse_layout(meta.at("layout")),
                                                          std::stoi(meta.at("layer")));
    CHECK(model.config().d_model == std::stoi(meta.at("d_model")));
    CHECK(model.config().kv_heads_or_heads() == std::stoi(meta.at("kv_heads")));

    const bool llama = meta.at("layout") == "llama";
    CHECK(expected.has("q_rot") == llama);
    CHECK(expected.has("k_rot") == llama);
    for (const char* tensor : kStageTensors) CHECK(expected.has(tensor));
    if (llama) CHECK(model.config().rope_base == doctest::Approx(std::stod(meta.at("rope_theta"))));

    for (mha::KernelPath path : {mha::KernelPath::simd, mha::KernelPath::scalar}) {
      CAPTURE(mha::kernel_path_name(path));
      const mha::Trace trace = model.run_input(input.read_float("x"), path);
      CHECK(trace.has("q_rot") == llama);
      for (const std::string& tensor : expected.names())
        mha_test::check_close(trace.get(tensor), expected.read_float(tensor), 1e-5, tensor.c_str());
    }
  }
}
