// safetensors reading and writing, the three weight layouts, and the reference weight files.
// Good files are built with mha::SafetensorsWriter; bad ones are hand-crafted bytes, so each test
// shows exactly which part of the format is broken and which message a learner would read.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "base/config.h"
#include "base/error.h"
#include "io/layouts.h"
#include "model/model.h"
#include "io/files.h"
#include "io/safetensors.h"
#include "base/tensor.h"
#include "model/trace.h"
#include "test_helpers.h"

namespace {

using Bytes = std::vector<uint8_t>;

// A safetensors file by hand: 8-byte little-endian length of `header`, `header`, then `data`.
Bytes raw_file(const std::string& header, const Bytes& data = {}) {
  Bytes out;
  const uint64_t len = header.size();
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<uint8_t>(len >> (8 * i)));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

Bytes f32_bytes(const std::vector<float>& values) {
  Bytes out(values.size() * 4);
  if (!values.empty()) std::memcpy(out.data(), values.data(), out.size());
  return out;
}

Bytes u16_bytes(const std::vector<uint16_t>& values) {
  Bytes out;
  for (const uint16_t v : values) {
    out.push_back(static_cast<uint8_t>(v & 0xFF));
    out.push_back(static_cast<uint8_t>(v >> 8));
  }
  return out;
}

uint64_t header_length(const Bytes& file) {
  uint64_t len = 0;
  for (int i = 7; i >= 0; --i) len = (len << 8) | file[i];
  return len;
}

// Parses `bytes` (kept alive by the caller, as SafetensorsFile copies nothing).
mha::SafetensorsFile open(const Bytes& bytes) { return mha::SafetensorsFile(bytes.data(), bytes.size()); }

// The message of the mha::Error `f` throws, or a marker that fails every find.
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const mha::Error& e) {
    return e.what();
  }
  return "<no mha::Error thrown>";
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

std::string reference_path(const std::string& file) { return mha_test::reference_dir() + "/" + file; }
Bytes reference(const std::string& file) { return mha::read_file(reference_path(file)); }

mha::Config config_with_heads(int heads, int kv_heads = 0) {
  mha::Config c;
  c.heads = heads;
  c.kv_heads = kv_heads;
  return c;
}

mha::Tensor iota_tensor(const mha::Shape& shape, float start = 0.25f, float step = 0.125f) {
  mha::Tensor t(shape);
  for (size_t i = 0; i < t.numel(); ++i) t.data[i] = start + step * static_cast<float>(i % 97) * (i % 2 ? -1.0f : 1.0f);
  return t;
}

using Named = std::vector<std::pair<std::string, mha::Tensor>>;

// The tensors of a well-formed pytorch nn.MultiheadAttention file of width d, in file order.
Named pytorch_tensors(int64_t d) {
  return {{"in_proj_weight", iota_tensor({3 * d, d}, 0.01f, 0.001f)},
          {"in_proj_bias", iota_tensor({3 * d}, 0.02f, 0.001f)},
          {"out_proj.weight", iota_tensor({d, d}, -0.01f, 0.002f)},
          {"out_proj.bias", iota_tensor({d}, 0.03f, 0.001f)}};
}

// `tensors` with the one called `name` swapped for `replacement`.
Named with(Named tensors, const std::string& name, mha::Tensor replacement) {
  for (auto& [n, t] : tensors)
    if (n == name) t = std::move(replacement);
  return tensors;
}

Bytes file_of(const Named& tensors) {
  mha::SafetensorsWriter w;
  for (const auto& [name, t] : tensors) w.add(name, t);
  return w.bytes();
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Writing and reading back

TEST_CASE("SafetensorsWriter output reads back: F32 and I64 values, shapes and metadata") {
  const mha::Tensor a({2, 3}, {1.0f, -2.0f, 3.5f, 0.0f, -0.0f, 1e-30f});
  const mha::Tensor b({1, 2, 2}, {std::numeric_limits<float>::max(), -1.0f, 0.5f, 7.0f});
  const std::vector<int64_t> ids = {0, -1, 42, std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min(),
                                    7};
  mha::SafetensorsWriter w;
  w.add("a", a);
  w.add("nested.name.b", b);
  w.add_int64("ids", {2, 3}, ids);
  w.set_metadata("case", "round trip");
  w.set_metadata("unicode", "我是秦始皇");
  const Bytes bytes = w.bytes();
  const mha::SafetensorsFile f = open(bytes);

  SUBCASE("names and entries") {
    CHECK(f.names() == std::vector<std::string>{"a", "ids", "nested.name.b"});
    CHECK(f.has("a"));
    CHECK_FALSE(f.has("A"));
    CHECK(f.entry("a").dtype == "F32");
    CHECK(f.entry("ids").dtype == "I64");
    CHECK(f.entry("a").end - f.entry("a").begin == 6 * 4);
    CHECK(f.entry("ids").end - f.entry("ids").begin == 6 * 8);
  }
  SUBCASE("F32 values and shapes are bit-exact") {
    const mha::Tensor ra = f.read_float("a");
    CHECK(ra.shape == mha::Shape{2, 3});
    REQUIRE(ra.numel() == a.numel());
    CHECK(std::memcmp(ra.ptr(), a.ptr(), a.numel() * 4) == 0);  // keeps -0.0 and the denormal-free tiny value
    const mha::Tensor rb = f.read_float("nested.name.b");
    CHECK(rb.shape == mha::Shape{1, 2, 2});
    CHECK(rb.data == b.data);
  }
  SUBCASE("I64 values and shape, extremes included") {
    CHECK(f.entry("ids").shape == mha::Shape{2, 3});
    CHECK(f.read_int("ids") == ids);
  }
  SUBCASE("metadata strings, UTF-8 kept") {
    CHECK(f.metadata().size() == 2);
    CHECK(f.metadata().at("case") == "round trip");
    CHECK(f.metadata().at("unicode") == "我是秦始皇");
  }
  SUBCASE("writing the read-back tensors again gives the same bytes") {
    mha::SafetensorsWriter again;
    again.add("a", f.read_float("a"));
    again.add("nested.name.b", f.read_float("nested.name.b"));
    again.add_int64("ids", f.entry("ids").shape, f.read_int("ids"));
    again.set_metadata("case", "round trip");
    again.set_metadata("unicode", "我是秦始皇");
    CHECK(again.bytes() == bytes);
  }
  SUBCASE("a file with no tensors and no metadata") {
    const Bytes empty = mha::SafetensorsWriter().bytes();
    const mha::SafetensorsFile e = open(empty);
    CHECK(e.names().empty());
    CHECK(e.metadata().empty());
  }
  SUBCASE("add_int64 refuses values that do not fill the shape") {
    mha::SafetensorsWriter bad;
    CHECK_THROWS_WITH_AS(bad.add_int64("ids", {2, 2}, {1, 2, 3}), doctest::Contains("'ids'"), mha::Error);
  }
}

TEST_CASE("I32 tensors read as integers") {
  std::vector<uint8_t> data(12);
  const int32_t values[3] = {-5, 0, 2147483647};
  std::memcpy(data.data(), values, 12);
  const Bytes bytes = raw_file(R"({"n":{"dtype":"I32","shape":[3],"data_offsets":[0,12]}})", data);
  CHECK(open(bytes).read_int("n") == std::vector<int64_t>{-5, 0, 2147483647});
}

TEST_CASE("a zero-size tensor reads back with its shape") {
  mha::SafetensorsWriter w;
  w.add("before", mha::Tensor({2}, {1.0f, 2.0f}));
  w.add("empty", mha::Tensor({0, 4}));
  w.add_int64("no_ids", {1, 0}, {});
  w.add("after", mha::Tensor({1}, {3.0f}));
  const Bytes bytes = w.bytes();
  const mha::SafetensorsFile f = open(bytes);

  SUBCASE("F32") {
    CHECK(f.entry("empty").begin == f.entry("empty").end);
    const mha::Tensor e = f.read_float("empty");
    CHECK(e.shape == mha::Shape{0, 4});
    CHECK(e.numel() == 0);
  }
  SUBCASE("I64") {
    CHECK(f.entry("no_ids").shape == mha::Shape{1, 0});
    CHECK(f.read_int("no_ids").empty());
  }
  SUBCASE("neighbours are unaffected") {
    CHECK(f.read_float("before").data == std::vector<float>{1.0f, 2.0f});
    CHECK(f.read_float("after").data == std::vector<float>{3.0f});
  }
  SUBCASE("a scalar (shape []) holds one value") {
    const Bytes scalar = raw_file(R"({"s":{"dtype":"F32","shape":[],"data_offsets":[0,4]}})", f32_bytes({9.5f}));
    const mha::Tensor s = open(scalar).read_float("s");
    CHECK(s.shape.empty());
    CHECK(s.data == std::vector<float>{9.5f});
  }
}

TEST_CASE("the data section starts 8-byte aligned whatever the header length") {
  for (size_t name_len = 1; name_len <= 17; ++name_len) {
    CAPTURE(name_len);
    mha::SafetensorsWriter w;
    w.add(std::string(name_len, 'n'), mha::Tensor({1}, {1.0f}));
    if (name_len % 3 == 0) w.set_metadata(std::string(name_len, 'k'), std::string(name_len % 5, 'v'));
    const Bytes bytes = w.bytes();
    REQUIRE(bytes.size() >= 8);
    const uint64_t len = header_length(bytes);
    CHECK((8 + len) % 8 == 0);
    CHECK(bytes.size() == 8 + len + 4);
    CHECK(open(bytes).read_float(std::string(name_len, 'n')).data == std::vector<float>{1.0f});
  }
}

// ---------------------------------------------------------------------------------------------
// Half-precision conversion

TEST_CASE("F16 converts exactly to float32") {
  const Bytes bytes = raw_file(R"({"h":{"dtype":"F16","shape":[10],"data_offsets":[0,20]}})",
                               u16_bytes({0x3C00, 0xC100, 0x7BFF, 0x0001, 0x7C00, 0xFC00, 0x8000, 0x03FF, 0x0400, 0x7E00}));
  const mha::Tensor t = open(bytes).read_float("h");
  REQUIRE(t.shape == mha::Shape{10});
  SUBCASE("normal values") {
    CHECK(t.data[0] == 1.0f);
    CHECK(t.data[1] == -2.5f);
    CHECK(t.data[2] == 65504.0f);  // largest half
    CHECK(t.data[8] == std::ldexp(1.0f, -14));  // smallest normal half
  }
  SUBCASE("subnormal halves") {
    CHECK(t.data[3] == std::ldexp(1.0f, -24));  // 5.960464e-8
    CHECK(t.data[3] == doctest::Approx(5.960464e-8).epsilon(1e-6));
    CHECK(t.data[7] == std::ldexp(1023.0f, -24));  // largest subnormal
  }
  SUBCASE("signed zero, infinities and NaN") {
    CHECK(t.data[6] == 0.0f);
    CHECK(std::signbit(t.data[6]));
    CHECK(std::isinf(t.data[4]));
    CHECK(t.data[4] > 0);
    CHECK(std::isinf(t.data[5]));
    CHECK(t.data[5] < 0);
    CHECK(std::isnan(t.data[9]));
  }
}

TEST_CASE("BF16 converts exactly to float32") {
  const Bytes bytes = raw_file(R"({"b":{"dtype":"BF16","shape":[2,3],"data_offsets":[0,12]}})",
                               u16_bytes({0x3F80, 0xC020, 0x477F, 0x0001, 0x7F80, 0x7FC0}));
  const mha::Tensor t = open(bytes).read_float("b");
  REQUIRE(t.shape == mha::Shape{2, 3});
  CHECK(t.data[0] == 1.0f);
  CHECK(t.data[1] == -2.5f);
  CHECK(t.data[2] == 65280.0f);                   // 65504 is not a bf16; its bf16 truncation is 0x477F
  CHECK(t.data[3] == std::ldexp(1.0f, -133));     // bf16 keeps float32's subnormals
  CHECK(std::isinf(t.data[4]));
  CHECK(std::isnan(t.data[5]));
}

// ---------------------------------------------------------------------------------------------
// Malformed files: one mha::Error each, naming the problem

TEST_CASE("a file too short for its header length is an error") {
  SUBCASE("empty") {
    const Bytes bytes;
    CHECK_THROWS_WITH_AS(mha::SafetensorsFile(bytes.data(), 0), doctest::Contains("too short"), mha::Error);
  }
  SUBCASE("7 bytes") {
    const Bytes bytes(7, 0);
    CHECK_THROWS_WITH_AS(open(bytes), doctest::Contains("7 bytes: too short"), mha::Error);
  }
}

TEST_CASE("a header length past the end of the file is an error") {
  SUBCASE("one byte past") {
    Bytes bytes = raw_file("{}");
    bytes[0] = 3;
    CHECK_THROWS_WITH_AS(open(bytes), doctest::Contains("runs past the end"), mha::Error);
  }
  SUBCASE("all 0xff: a length near 2^64 must not wrap around") {
    const Bytes bytes = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, '{', '}', ' ', ' '};
    CHECK_THROWS_WITH_AS(open(bytes), doctest::Contains("runs past the end"), mha::Error);
  }
  SUBCASE("a header length of zero is not JSON") {
    const Bytes bytes = raw_file("");
    CHECK_THROWS_WITH_AS(open(bytes), doctest::Contains("not valid JSON"), mha::Error);
  }
}

TEST_CASE("a header that is not a JSON object is an error") {
  SUBCASE("malformed JSON") {
    const Bytes bytes = raw_file(R"({"a":)");
    CHECK_THROWS_WITH_AS(open(bytes), doctest::Contains("not valid JSON"), mha::Error);
  }
  SUBCASE("trailing garbage") {
    const Bytes bytes = raw_file(R"({} x)");
    CHECK_THROWS_WITH_AS(open(bytes), doctest::Contains("not valid JSON"), mha::Error);
  }
  SUBCASE("invalid UTF-8 inside a string") {
    const Bytes bytes = raw_file("{\"\xFF\":1}");
    CHECK_THROWS_WITH_AS(open(bytes), doctest::Contains("not valid JSON"), mha::Error);
  }
  SUBCASE("an array") {
    const Bytes bytes = raw_file("[1, 2]");
    CHECK_THROWS_WITH_AS(open(bytes), doctest::Contains("not an object"), mha::Error);
  }
  SUBCASE("a string") {
    const Bytes bytes = raw_file(R"("x")");
    CHECK_THROWS_WITH_AS(open(bytes), doctest::Contains("not an object"), mha::Error);
  }
  SUBCASE("a tensor entry that is not an object") {
    const Bytes bytes = raw_file(R"({"w": 3})");
    CHECK_THROWS_WITH_AS(open(bytes), doctest::Contains("tensor 'w' is not a JSON object"), mha::Error);
  }
}

TEST_CASE("a tensor entry missing dtype, shape or data_offsets is an error naming the tensor and field") {
  const Bytes four = f32_bytes({1.0f});
  SUBCASE("no dtype") {
    const Bytes bytes = raw_file(R"({"w":{"shape":[1],"data_offsets":[0,4]}})", four);
    CHECK_THROWS_WITH_AS(open(bytes), doctest::Contains("tensor 'w' has no string \"dtype\""), mha::Error);
  }
  SUBCASE("dtype not a string") {
    const Bytes bytes = raw_file(R"({"w":{"dtype":32,"shape":[1],"data_offsets":[0,4]}})", four);
    CHECK_THROWS_WITH_AS(open(bytes), doctest::Contains("\"dtype\""), mha::Error);
  }
  SUBCASE("no shape") {
    const Bytes bytes = raw_file(R"({"w":{"dtype":"F32","data_offsets":[0,4]}})", four);
    CHECK_THROWS_WITH_AS(open(bytes), doctest::Contains("tensor 'w' has no \"shape\""), mha::Error);
  }
  SUBCASE("shape not an array") {
    const Bytes bytes = raw_file(R"({"w":{"dtype":"F32","shape":1,"data_offsets":[0,4]}})", four);
    CHECK_THROWS_WITH_AS(open(bytes), doctest::Contains("\"shape\""), mha::Error);
  }
  SUBCASE("no data_offsets") {
    const Bytes bytes = raw_file(R"({"w":{"dtype":"F32","shape":[1]}})", four);
    CHECK_THROWS_WITH_AS(open(bytes), doctest::Contains("tensor 'w' has no [begin, end] \"data_offsets\""), mha::Error);
  }
  SUBCASE("data_offsets with three numbers") {
    const Bytes bytes = raw_file(R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4,4]}})", four);
    CHECK_THROWS_WITH_AS(open(bytes), doctest::Contains("\"data_offsets\""), mha::Error);
  }
}

TEST_CASE("a negative or non-integer shape is an error") {
  const Bytes eight = f32_bytes({1.0f, 2.0f});
  for (const char* dim : {"-2", "2.0", "2.5", "\"2\"", "null", "true", "[2]"}) {
    CAPTURE(dim);
    const Bytes bytes =
        raw_file(std::string(R"({"w":{"dtype":"F32","shape":[1,)") + dim + R"(],"data_offsets":[0,8]}})", eight);
    CHECK_THROWS_WITH_AS(open(bytes), doctest::Contains("tensor 'w' has a shape entry that is not a non-negative integer"),
                         mha::Error);
  }
  SUBCASE("a shape whose element count overflows") {
    const Bytes bytes = raw_file(
        R"({"w":{"dtype":"F32","shape":[4294967296,4294967296,4294967296],"data_offsets":[0,8]}})", eight);
    CHECK_THROWS_WITH_AS(open(bytes), doctest::Contains("impossibly large shape"), mha::Error);
  }
}

TEST_CASE("data_offsets outside the data section are an error") {
  mha::SafetensorsWriter w;
  w.add("first", mha::Tensor({2}, {1.0f, 2.0f}));
  w.add("last", mha::Tensor({3}, {3.0f, 4.0f, 5.0f}));
  const Bytes good = w.bytes();
  REQUIRE_NOTHROW(open(good));

  SUBCASE("a truncated file: the last bytes cut off") {
    for (size_t cut : {1, 4, 12}) {
      CAPTURE(cut);
      const Bytes truncated(good.begin(), good.end() - static_cast<std::ptrdiff_t>(cut));
      const std::string m = error_of([&] { open(truncated); });
      CHECK(contains(m, "tensor 'last'"));
      CHECK(contains(m, "outside the " + std::to_string(20 - cut) + "-byte data section"));
      CHECK(contains(m, "truncated"));
    }
  }
  SUBCASE("cut inside the header") {
    const Bytes truncated(good.begin(), good.begin() + 20);
    CHECK_THROWS_WITH_AS(open(truncated), doctest::Contains("runs past the end"), mha::Error);
  }
  SUBCASE("begin after end") {
    const Bytes bytes = raw_file(R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[4,0]}})", f32_bytes({1.0f, 2.0f}));
    CHECK_THROWS_WITH_AS(open(bytes), doctest::Contains("data_offsets [4, 0] outside"), mha::Error);
  }
  SUBCASE("negative offsets") {
    const Bytes bytes = raw_file(R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[-4,0]}})", f32_bytes({1.0f}));
    CHECK_THROWS_WITH_AS(open(bytes), doctest::Contains("data_offsets that are not non-negative integers"), mha::Error);
  }
  SUBCASE("an offset near 2^64") {
    const Bytes bytes = raw_file(
        R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[18446744073709551612,18446744073709551615]}})",
        f32_bytes({1.0f}));
    CHECK_THROWS_WITH_AS(open(bytes), doctest::Contains("outside the 4-byte data section"), mha::Error);
  }
}

TEST_CASE("a byte count that does not match shape x dtype is an error") {
  SUBCASE("too many bytes") {
    const Bytes bytes = raw_file(R"({"w":{"dtype":"F32","shape":[3],"data_offsets":[0,16]}})", Bytes(16));
    CHECK_THROWS_WITH_AS(open(bytes), doctest::Contains("tensor 'w' has 16 bytes but its F32 shape (3,) needs 12"),
                         mha::Error);
  }
  SUBCASE("too few bytes for F16") {
    const Bytes bytes = raw_file(R"({"h":{"dtype":"F16","shape":[2,2],"data_offsets":[0,4]}})", Bytes(8));
    CHECK_THROWS_WITH_AS(open(bytes), doctest::Contains("has 4 bytes but its F16 shape (2, 2) needs 8"), mha::Error);
  }
  SUBCASE("I64 counted at 8 bytes") {
    const Bytes bytes = raw_file(R"({"i":{"dtype":"I64","shape":[2],"data_offsets":[0,8]}})", Bytes(8));
    CHECK_THROWS_WITH_AS(open(bytes), doctest::Contains("needs 16"), mha::Error);
  }
}

TEST_CASE("metadata must be an object of strings") {
  SUBCASE("a number value") {
    const Bytes bytes = raw_file(R"({"__metadata__":{"ok":"yes","layer":1}})");
    CHECK_THROWS_WITH_AS(open(bytes), doctest::Contains("metadata 'layer' is not a string"), mha::Error);
  }
  SUBCASE("an object value") {
    const Bytes bytes = raw_file(R"({"__metadata__":{"nested":{"a":"b"}}})");
    CHECK_THROWS_WITH_AS(open(bytes), doctest::Contains("metadata 'nested' is not a string"), mha::Error);
  }
  SUBCASE("__metadata__ itself not an object") {
    const Bytes bytes = raw_file(R"({"__metadata__":"v1"})");
    CHECK_THROWS_WITH_AS(open(bytes), doctest::Contains("__metadata__ is not an object"), mha::Error);
  }
}

TEST_CASE("reading a tensor that is not there, or of the wrong dtype, is an error naming it") {
  mha::SafetensorsWriter w;
  w.add("x", mha::Tensor({1}, {1.0f}));
  w.add_int64("ids", {1, 2}, {3, 4});
  const Bytes bytes = w.bytes();
  const mha::SafetensorsFile f = open(bytes);

  SUBCASE("missing tensor") {
    CHECK_THROWS_WITH_AS(f.read_float("y"), doctest::Contains("has no tensor 'y'"), mha::Error);
    CHECK_THROWS_WITH_AS(f.read_int("y"), doctest::Contains("has no tensor 'y'"), mha::Error);
    CHECK_THROWS_WITH_AS(f.entry("y"), doctest::Contains("has no tensor 'y'"), mha::Error);
  }
  SUBCASE("I64 read as float names the tensor and its dtype") {
    CHECK_THROWS_WITH_AS(f.read_float("ids"), doctest::Contains("tensor 'ids' has dtype I64"), mha::Error);
  }
  SUBCASE("F32 read as integers") {
    CHECK_THROWS_WITH_AS(f.read_int("x"), doctest::Contains("tensor 'x' has dtype F32"), mha::Error);
  }
  SUBCASE("an unknown dtype opens but is not readable") {
    const Bytes odd = raw_file(R"({"c":{"dtype":"C64","shape":[2],"data_offsets":[0,16]}})", Bytes(16));
    const mha::SafetensorsFile of = open(odd);
    CHECK(of.entry("c").dtype == "C64");
    CHECK_THROWS_WITH_AS(of.read_float("c"), doctest::Contains("tensor 'c' has dtype C64"), mha::Error);
  }
  SUBCASE("an unknown dtype with a huge shape and no data is refused before anything is allocated") {
    const Bytes odd = raw_file(R"({"c":{"dtype":"C64","shape":[4294967295],"data_offsets":[0,0]}})");
    const mha::SafetensorsFile of = open(odd);
    CHECK_THROWS_WITH_AS(of.read_float("c"), doctest::Contains("has dtype C64"), mha::Error);
    CHECK_THROWS_WITH_AS(of.read_int("c"), doctest::Contains("has dtype C64"), mha::Error);
  }
}

TEST_CASE("read_file of a missing path names it") {
  CHECK_THROWS_WITH_AS(mha::read_file("/nonexistent/dir/w.safetensors"), "/nonexistent/dir/w.safetensors: no such file",
                       mha::Error);
}

// ---------------------------------------------------------------------------------------------
// Layouts

TEST_CASE("parse_layout knows pytorch, llama, gpt2 and attn-only only") {
  CHECK(mha::parse_layout("pytorch") == mha::WeightLayout::pytorch);
  CHECK(mha::parse_layout("llama") == mha::WeightLayout::llama);
  CHECK(mha::parse_layout("gpt2") == mha::WeightLayout::gpt2);
  CHECK(mha::parse_layout("attn-only") == mha::WeightLayout::attn_only);
  CHECK(std::string(mha::layout_name(mha::WeightLayout::gpt2)) == "gpt2");
  CHECK(std::string(mha::layout_name(mha::WeightLayout::attn_only)) == "attn-only");
  CHECK_THROWS_WITH_AS(mha::parse_layout("bert"), doctest::Contains("unknown weight layout 'bert'"), mha::Error);
  CHECK_THROWS_WITH_AS(mha::parse_layout("PyTorch"), doctest::Contains("expected pytorch, llama, gpt2 or attn-only"), mha::Error);
}

TEST_CASE("a pytorch file with in_proj_weight of the wrong shape names the tensor and both shapes") {
  mha::SafetensorsWriter w;
  w.add("in_proj_weight", iota_tensor({10, 4}));
  w.add("out_proj.weight", iota_tensor({4, 4}));
  const Bytes bytes = w.bytes();
  const mha::SafetensorsFile f = open(bytes);
  const std::string m = error_of([&] { mha::load_weights_layer(f, mha::WeightLayout::pytorch, 0, 2, 0); });
  INFO(m);
  CHECK(contains(m, "'in_proj_weight'"));
  CHECK(contains(m, "(10, 4)"));
  CHECK(contains(m, "(12, 4)"));

  SUBCASE("a 1-d in_proj_weight") {
    mha::SafetensorsWriter v;
    v.add("in_proj_weight", iota_tensor({12}));
    const Bytes vb = v.bytes();
    CHECK_THROWS_WITH_AS(mha::load_weights_layer(open(vb), mha::WeightLayout::pytorch, 0, 1, 0),
                         doctest::Contains("'in_proj_weight' has shape (12,); expected (rows, columns)"), mha::Error);
  }
  SUBCASE("a bias of the wrong length") {
    const Bytes vb = file_of(with(pytorch_tensors(4), "out_proj.bias", iota_tensor({5})));
    CHECK_THROWS_WITH_AS(mha::load_weights_layer(open(vb), mha::WeightLayout::pytorch, 0, 2, 0),
                         doctest::Contains("'out_proj.bias' has shape (5,); expected (4,)"), mha::Error);
  }
  SUBCASE("through Model::from_safetensors") {
    CHECK_THROWS_WITH_AS(mha::Model::from_safetensors(config_with_heads(2), bytes.data(), bytes.size(),
                                                      mha::WeightLayout::pytorch, 0),
                         doctest::Contains("'in_proj_weight' has shape (10, 4); expected (12, 4)"), mha::Error);
  }
}

TEST_CASE("a missing out_proj.weight is named") {
  mha::SafetensorsWriter w;
  w.add("in_proj_weight", iota_tensor({12, 4}));
  w.add("in_proj_bias", iota_tensor({12}));
  w.add("out_proj.bias", iota_tensor({4}));
  const Bytes bytes = w.bytes();
  CHECK_THROWS_WITH_AS(mha::load_weights_layer(open(bytes), mha::WeightLayout::pytorch, 0, 2, 0),
                       doctest::Contains("'out_proj.weight'"), mha::Error);
  CHECK_THROWS_WITH_AS(
      mha::Model::from_safetensors(config_with_heads(2), bytes.data(), bytes.size(), mha::WeightLayout::pytorch, 0),
      doctest::Contains("'out_proj.weight'"), mha::Error);
}

TEST_CASE("a pytorch file without biases loads with zero biases") {
  mha::SafetensorsWriter w;
  w.add("in_proj_weight", iota_tensor({12, 4}));
  w.add("out_proj.weight", iota_tensor({4, 4}));
  const Bytes bytes = w.bytes();
  const mha::LoadedWeights l = mha::load_weights_layer(open(bytes), mha::WeightLayout::pytorch, 0, 2, 0);
  CHECK(l.d_model == 4);
  CHECK(l.kv_heads == 2);
  CHECK(l.attention.b_q.data == std::vector<float>(4, 0.0f));
  CHECK(l.attention.b_o.data == std::vector<float>(4, 0.0f));
}

TEST_CASE("each layout looks for a layer where its checkpoints keep it, in order") {
  const Bytes bytes = reference("gpt2_layer1.weights.safetensors");
  const mha::SafetensorsFile f = open(bytes);
  struct Looked {
    mha::WeightLayout layout;
    std::string key;
    std::vector<std::string> prefixes;
  };
  const std::vector<std::string> ours = {"h.7.", "transformer.h.7.", ""};
  const std::vector<std::string> pytorch = {"", "self_attn.", "layers.7.self_attn.", "encoder.layers.7.self_attn."};
  const std::vector<std::string> llama = {"", "self_attn.", "model.layers.7.self_attn.", "layers.7.self_attn."};
  for (const Looked& l : {Looked{mha::WeightLayout::pytorch, "in_proj_weight", pytorch},
                          Looked{mha::WeightLayout::llama, "q_proj.weight", llama},
                          Looked{mha::WeightLayout::gpt2, "attn.c_attn.weight", ours},
                          Looked{mha::WeightLayout::attn_only, "attn.c_attn.weight", ours}}) {
    std::string says = std::string("no ") + mha::layout_name(l.layout) + " attention weights for layer 7: looked for ";
    for (size_t i = 0; i < l.prefixes.size(); ++i) says += (i == 0 ? "'" : ", '") + l.prefixes[i] + l.key + "'";
    const std::string m = error_of([&] { mha::load_weights_layer(f, l.layout, 7, 4, 0); });
    CHECK(m.size() >= says.size());
    CHECK(m.substr(m.size() - std::min(m.size(), says.size())) == says);
  }
}

TEST_CASE("a gpt2 file asked for a layer it does not have lists the names it looked for") {
  const Bytes bytes = reference("gpt2_layer1.weights.safetensors");
  const mha::SafetensorsFile f = open(bytes);
  const std::string m = error_of([&] { mha::load_weights_layer(f, mha::WeightLayout::gpt2, 7, 4, 0); });
  INFO(m);
  CHECK(contains(m, "no gpt2 attention weights for layer 7"));
  CHECK(contains(m, "'h.7.attn.c_attn.weight'"));
  CHECK(contains(m, "'transformer.h.7.attn.c_attn.weight'"));
  CHECK(contains(m, "'attn.c_attn.weight'"));

  SUBCASE("a pytorch-layout read of the gpt2 file lists the pytorch names") {
    CHECK_THROWS_WITH_AS(mha::load_weights_layer(f, mha::WeightLayout::pytorch, 0, 4, 0),
                         doctest::Contains("looked for 'in_proj_weight'"), mha::Error);
  }
  SUBCASE("a negative layer") {
    CHECK_THROWS_WITH_AS(mha::load_weights_layer(f, mha::WeightLayout::gpt2, -1, 4, 0),
                         doctest::Contains("layer must be 0 or more, got -1"), mha::Error);
  }
}

TEST_CASE("llama kv_heads that disagree with k_proj's rows are an error") {
  const Bytes bytes = reference("llama_gqa.weights.safetensors");  // d 32, heads 8, d_head 4, k_proj (8, 32)
  const mha::SafetensorsFile f = open(bytes);
  SUBCASE("kv_heads 4 against 2 in the file") {
    const std::string m = error_of([&] { mha::load_weights_layer(f, mha::WeightLayout::llama, 0, 8, 4); });
    INFO(m);
    CHECK(contains(m, "kv_heads is 4"));
    CHECK(contains(m, "8 rows = 2 heads of d_head 4"));
  }
  SUBCASE("kv_heads 8 (plain MHA) through from_safetensors") {
    CHECK_THROWS_WITH_AS(
        mha::Model::from_safetensors(config_with_heads(8, 8), bytes.data(), bytes.size(), mha::WeightLayout::llama, 0),
        doctest::Contains("kv_heads is 8 but the K projection of the file has 8 rows"), mha::Error);
  }
  SUBCASE("k_proj rows that are not whole heads") {
    mha::SafetensorsWriter w;
    w.add("q_proj.weight", iota_tensor({8, 8}));
    w.add("k_proj.weight", iota_tensor({3, 8}));
    w.add("v_proj.weight", iota_tensor({3, 8}));
    w.add("o_proj.weight", iota_tensor({8, 8}));
    const Bytes odd = w.bytes();
    CHECK_THROWS_WITH_AS(mha::load_weights_layer(open(odd), mha::WeightLayout::llama, 0, 4, 0),
                         doctest::Contains("K projection has 3 rows, not a multiple of d_head 2"), mha::Error);
  }
  SUBCASE("v_proj of a different shape from k_proj") {
    mha::SafetensorsWriter w;
    w.add("q_proj.weight", iota_tensor({8, 8}));
    w.add("k_proj.weight", iota_tensor({2, 8}));
    w.add("v_proj.weight", iota_tensor({4, 8}));
    w.add("o_proj.weight", iota_tensor({8, 8}));
    const Bytes odd = w.bytes();
    CHECK_THROWS_WITH_AS(mha::load_weights_layer(open(odd), mha::WeightLayout::llama, 0, 4, 0),
                         doctest::Contains("'v_proj.weight' has shape (4, 8); expected (2, 8)"), mha::Error);
  }
}

TEST_CASE("heads that do not divide the file's d_model are an error") {
  const Bytes bytes = reference("pytorch_mha.weights.safetensors");  // d_model 24
  CHECK_THROWS_WITH_AS(mha::load_weights_layer(open(bytes), mha::WeightLayout::pytorch, 0, 5, 0),
                       doctest::Contains("d_model 24 is not divisible by heads 5"), mha::Error);
  CHECK_THROWS_WITH_AS(
      mha::Model::from_safetensors(config_with_heads(7), bytes.data(), bytes.size(), mha::WeightLayout::pytorch, 0),
      doctest::Contains("d_model 24 is not divisible by heads 7"), mha::Error);
  CHECK_THROWS_WITH_AS(
      mha::Model::from_safetensors(config_with_heads(0), bytes.data(), bytes.size(), mha::WeightLayout::pytorch, 0),
      doctest::Contains("heads must be between 1 and"), mha::Error);
}

TEST_CASE("a NaN or infinity inside a weight is an error that says so") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  SUBCASE("NaN in out_proj.weight") {
    mha::Tensor o = iota_tensor({4, 4});
    o.data[5] = nan;
    const Bytes bytes = file_of(with(pytorch_tensors(4), "out_proj.weight", o));
    const std::string m = error_of([&] { mha::load_weights_layer(open(bytes), mha::WeightLayout::pytorch, 0, 2, 0); });
    INFO(m);
    CHECK(contains(m, "NaN"));
    CHECK(contains(m, "'out_proj.weight'"));
    CHECK(contains(m, "flat index 5"));
  }
  SUBCASE("NaN in in_proj_bias, through from_safetensors") {
    mha::Tensor b = iota_tensor({12});
    b.data[9] = nan;  // the V third: b_V[1]
    const Bytes bytes = file_of(with(pytorch_tensors(4), "in_proj_bias", b));
    CHECK_THROWS_WITH_AS(
        mha::Model::from_safetensors(config_with_heads(2), bytes.data(), bytes.size(), mha::WeightLayout::pytorch, 0),
        doctest::Contains("'in_proj_bias' contains NaN at flat index 9"), mha::Error);
  }
  SUBCASE("infinity in a llama q_proj") {
    mha::SafetensorsWriter w;
    mha::Tensor q = iota_tensor({4, 4});
    q.data[0] = -inf;
    w.add("q_proj.weight", q);
    w.add("k_proj.weight", iota_tensor({4, 4}));
    w.add("v_proj.weight", iota_tensor({4, 4}));
    w.add("o_proj.weight", iota_tensor({4, 4}));
    const Bytes bytes = w.bytes();
    CHECK_THROWS_WITH_AS(mha::load_weights_layer(open(bytes), mha::WeightLayout::llama, 0, 2, 0),
                         doctest::Contains("'q_proj.weight' contains infinity"), mha::Error);
  }
  SUBCASE("NaN in gpt2's position table") {
    mha::SafetensorsWriter w;
    w.add("h.0.attn.c_attn.weight", iota_tensor({4, 12}));
    w.add("h.0.attn.c_attn.bias", iota_tensor({12}));
    w.add("h.0.attn.c_proj.weight", iota_tensor({4, 4}));
    w.add("h.0.attn.c_proj.bias", iota_tensor({4}));
    mha::Tensor wpe = iota_tensor({3, 4});
    wpe.data[11] = nan;
    w.add("wpe.weight", wpe);
    const Bytes bytes = w.bytes();
    CHECK_THROWS_WITH_AS(mha::load_weights_layer(open(bytes), mha::WeightLayout::gpt2, 0, 2, 0),
                         doctest::Contains("'wpe.weight' contains NaN"), mha::Error);
  }
  SUBCASE("a NaN stored as F16") {
    std::string header = R"({"in_proj_weight":{"dtype":"F16","shape":[3,1],"data_offsets":[0,6]},)"
                         R"("out_proj.weight":{"dtype":"F16","shape":[1,1],"data_offsets":[6,8]}})";
    const Bytes bytes = raw_file(header, u16_bytes({0x3C00, 0x3C00, 0x3C00, 0x7E00}));
    CHECK_THROWS_WITH_AS(mha::load_weights_layer(open(bytes), mha::WeightLayout::pytorch, 0, 1, 0),
                         doctest::Contains("'out_proj.weight' contains NaN"), mha::Error);
  }
}

TEST_CASE("Model::load_weights that fails leaves the model unchanged") {
  const Bytes good = reference("pytorch_mha.weights.safetensors");
  mha::Model model = mha::Model::from_safetensors(config_with_heads(4), good.data(), good.size(),
                                                  mha::WeightLayout::pytorch, 0);
  const std::string text = "我是秦始皇 hello";
  const mha::Trace before = model.run_text(text);
  const mha::Tensor w_q_before = model.weights().w_q;
  REQUIRE(model.config().d_model == 24);

  auto unchanged = [&] {
    CHECK(model.config().d_model == 24);
    CHECK(model.config().heads == 4);
    CHECK(model.config().kv_heads == 4);
    CHECK(model.weights().w_q.data == w_q_before.data);
    const mha::Trace after = model.run_text(text);
    CHECK(after.tokens == before.tokens);
    CHECK(after.get("y").shape == before.get("y").shape);
    CHECK(after.get("y").data == before.get("y").data);
  };

  SUBCASE("truncated bytes") {
    const Bytes cut(good.begin(), good.end() - 8);
    CHECK_THROWS_WITH_AS(model.load_weights(cut.data(), cut.size(), mha::WeightLayout::pytorch, 0),
                         doctest::Contains("truncated"), mha::Error);
    unchanged();
  }
  SUBCASE("garbage bytes") {
    const Bytes junk(64, 0xFF);
    CHECK_THROWS_AS(model.load_weights(junk.data(), junk.size(), mha::WeightLayout::pytorch, 0), mha::Error);
    unchanged();
  }
  SUBCASE("a valid file of another layout") {
    const Bytes llama = reference("llama_gqa.weights.safetensors");
    CHECK_THROWS_WITH_AS(model.load_weights(llama.data(), llama.size(), mha::WeightLayout::pytorch, 0),
                         doctest::Contains("in_proj_weight"), mha::Error);
    unchanged();
  }
  SUBCASE("a valid file whose K rows do not fit the kept heads") {
    const Bytes mqa = reference("llama_mqa_layer0.weights.safetensors");  // d 24: d_head 6 with 4 heads, K has 4 rows
    CHECK_THROWS_WITH_AS(model.load_weights(mqa.data(), mqa.size(), mha::WeightLayout::llama, 0),
                         doctest::Contains("not a multiple of d_head 6"), mha::Error);
    unchanged();
  }
  SUBCASE("a good file does replace the weights") {
    const Bytes large = reference("pytorch_large.weights.safetensors");  // d_model 16, heads 4 divide it
    model.load_weights(large.data(), large.size(), mha::WeightLayout::pytorch, 0);
    CHECK(model.config().d_model == 16);
    CHECK(model.config().heads == 4);
    CHECK(model.run_text(text).get("y").shape == mha::Shape{1, 6, 16});
  }
}

TEST_CASE("configure after load_weights keeps the file's weights, and refuses what their shapes forbid") {
  const Bytes good = reference("pytorch_mha.weights.safetensors");
  mha::Model model = mha::Model::from_safetensors(config_with_heads(4), good.data(), good.size(),
                                                  mha::WeightLayout::pytorch, 0);
  const mha::Tensor loaded = model.weights().w_q;
  SUBCASE("a causal toggle and a new head count keep them") {
    mha::Config c = model.config();  // d_model 24 from the file
    c.causal = !c.causal;
    model.configure(c);
    CHECK(model.weights().w_q.data == loaded.data);
    CHECK(model.config().causal == c.causal);
    c.heads = 2;
    c.kv_heads = 0;  // following heads: the K/V width stays 24
    model.configure(c);
    CHECK(model.weights().w_q.data == loaded.data);
    CHECK(model.config().heads == 2);
  }
  SUBCASE("a new d_model is an error, and the model is unchanged") {
    mha::Config c = model.config();
    c.d_model = 32;
    CHECK_THROWS_WITH_AS(model.configure(c), doctest::Contains("d_model is 24: the loaded weights fix it"), mha::Error);
    CHECK(model.config().d_model == 24);
    CHECK(model.weights().w_q.data == loaded.data);
  }
}

// ---------------------------------------------------------------------------------------------
// The committed reference weight files

TEST_CASE("the reference weight files load") {
  SUBCASE("pytorch_mha, heads 4") {
    const Bytes bytes = reference("pytorch_mha.weights.safetensors");
    const mha::SafetensorsFile f = open(bytes);
    const mha::LoadedWeights l = mha::load_weights_layer(f, mha::WeightLayout::pytorch, 0, 4, 0);
    CHECK(l.d_model == 24);
    CHECK(l.kv_heads == 4);
    CHECK(l.token_table.data.empty());
    CHECK(l.position_table.data.empty());
    const mha::Tensor in_w = f.read_float("in_proj_weight");
    const mha::Tensor in_b = f.read_float("in_proj_bias");
    // q|k|v stacked along rows: W_K is rows 24..47.
    CHECK(l.attention.w_k.shape == mha::Shape{24, 24});
    CHECK(std::equal(l.attention.w_k.data.begin(), l.attention.w_k.data.end(), in_w.data.begin() + 24 * 24));
    CHECK(std::equal(l.attention.b_v.data.begin(), l.attention.b_v.data.end(), in_b.data.begin() + 48));
    CHECK(l.attention.w_o.data == f.read_float("out_proj.weight").data);
    CHECK(f.metadata().at("case") == "pytorch_mha");

    const mha::Model m = mha::Model::from_safetensors(config_with_heads(4), bytes.data(), bytes.size(),
                                                      mha::WeightLayout::pytorch, 0);
    CHECK(m.config().d_model == 24);
    CHECK(m.config().d_head() == 6);
    CHECK_FALSE(m.has_learned_positions());
  }
  SUBCASE("gpt2_layer1, layer 1, heads 4: wte and wpe feed run_text") {
    const Bytes bytes = reference("gpt2_layer1.weights.safetensors");
    const mha::SafetensorsFile f = open(bytes);
    const mha::LoadedWeights l = mha::load_weights_layer(f, mha::WeightLayout::gpt2, 1, 4, 0);
    CHECK(l.d_model == 48);
    CHECK(l.kv_heads == 4);
    CHECK(l.token_table.shape == mha::Shape{50, 48});
    CHECK(l.position_table.shape == mha::Shape{16, 48});
    // Conv1D (in, out): W_Q[r][c] = c_attn.weight[c][r] for the first 48 output columns.
    const mha::Tensor c_attn = f.read_float("h.1.attn.c_attn.weight");
    CHECK(l.attention.w_q.data[3 * 48 + 5] == c_attn.data[5 * 144 + 3]);
    CHECK(l.attention.w_v.data[2 * 48 + 7] == c_attn.data[7 * 144 + 96 + 2]);
    CHECK(l.attention.b_k.data[0] == f.read_float("h.1.attn.c_attn.bias").data[48]);
    const mha::LoadedWeights l0 = mha::load_weights_layer(f, mha::WeightLayout::gpt2, 0, 4, 0);
    CHECK(l0.attention.w_q.data != l.attention.w_q.data);

    const mha::Model m = mha::Model::from_safetensors(config_with_heads(4), bytes.data(), bytes.size(),
                                                      mha::WeightLayout::gpt2, 1);
    CHECK(m.has_learned_positions());
    CHECK(m.config().vocab_size == 50);
    const mha::Trace t = m.run_text("我 是 秦 始 皇");
    const int64_t T = static_cast<int64_t>(t.tokens.size());
    REQUIRE(T == 5);
    const mha::Tensor& pe = t.get("position_encoding");
    const mha::Tensor wpe = f.read_float("wpe.weight");
    CHECK(pe.shape == mha::Shape{1, T, 48});
    CHECK(std::vector<float>(wpe.data.begin(), wpe.data.begin() + T * 48) == pe.data);
    const mha::Tensor wte = f.read_float("wte.weight");
    const mha::Tensor& te = t.get("token_embedding");
    for (int64_t i = 0; i < T; ++i) {
      CAPTURE(i);
      const int64_t id = t.ids[static_cast<size_t>(i)];
      REQUIRE(id >= 0);
      REQUIRE(id < 50);
      CHECK(std::equal(te.data.begin() + i * 48, te.data.begin() + (i + 1) * 48, wte.data.begin() + id * 48));
    }
  }
  SUBCASE("gpt2: text longer than wpe's 16 positions is an error") {
    const Bytes bytes = reference("gpt2_layer1.weights.safetensors");
    const mha::Model m = mha::Model::from_safetensors(config_with_heads(4), bytes.data(), bytes.size(),
                                                      mha::WeightLayout::gpt2, 1);
    CHECK_THROWS_WITH_AS(m.run_text("一二三四五六七八九十一二三四五六七"),
                         doctest::Contains("only 16 positions"), mha::Error);
  }
  SUBCASE("llama_gqa, heads 8: kv_heads read as 2") {
    const Bytes bytes = reference("llama_gqa.weights.safetensors");
    const mha::LoadedWeights l = mha::load_weights_layer(open(bytes), mha::WeightLayout::llama, 0, 8, 0);
    CHECK(l.d_model == 32);
    CHECK(l.kv_heads == 2);
    CHECK(l.attention.w_k.shape == mha::Shape{8, 32});
    CHECK(l.attention.b_q.data == std::vector<float>(32, 0.0f));  // no biases in Llama
    CHECK(mha::load_weights_layer(open(bytes), mha::WeightLayout::llama, 0, 8, 2).kv_heads == 2);
    const mha::Model m = mha::Model::from_safetensors(config_with_heads(8), bytes.data(), bytes.size(),
                                                      mha::WeightLayout::llama, 0);
    CHECK(m.config().kv_heads == 2);
    CHECK(m.config().kv_dim() == 8);
  }
  SUBCASE("llama_mqa_layer0, heads 6: kv_heads 1, and layer 1 differs from layer 0") {
    const Bytes bytes = reference("llama_mqa_layer0.weights.safetensors");
    const mha::SafetensorsFile f = open(bytes);
    const mha::LoadedWeights l0 = mha::load_weights_layer(f, mha::WeightLayout::llama, 0, 6, 0);
    const mha::LoadedWeights l1 = mha::load_weights_layer(f, mha::WeightLayout::llama, 1, 6, 0);
    CHECK(l0.d_model == 24);
    CHECK(l0.kv_heads == 1);
    CHECK(l1.kv_heads == 1);
    CHECK(l0.attention.w_q.data == f.read_float("model.layers.0.self_attn.q_proj.weight").data);
    CHECK(l1.attention.w_q.data == f.read_float("model.layers.1.self_attn.q_proj.weight").data);
    CHECK(l0.attention.w_q.data != l1.attention.w_q.data);
    CHECK_THROWS_WITH_AS(mha::load_weights_layer(f, mha::WeightLayout::llama, 2, 6, 0),
                         doctest::Contains("'model.layers.2.self_attn.q_proj.weight'"), mha::Error);
  }
  SUBCASE("every reference input and expected file opens, and each weights file names its case") {
    for (const char* name : {"pytorch_mha", "pytorch_causal", "pytorch_large", "gpt2_layer1", "llama_gqa",
                             "llama_mqa_layer0"}) {
      CAPTURE(name);
      const Bytes w = reference(std::string(name) + ".weights.safetensors");
      const Bytes x = reference(std::string(name) + ".input.safetensors");
      const Bytes e = reference(std::string(name) + ".expected.safetensors");
      CHECK(open(w).metadata().at("case") == name);
      CHECK(open(x).has("x"));
      CHECK(open(e).has("y"));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Files that contradict themselves, and the reproducers found by fuzzing (tests/data/repro)

namespace {

std::string repro(const std::string& file) { return mha_test::repro_dir() + "/" + file; }

// The mha::Error reading `path` as a whole model gives: its code and message.
std::pair<std::string, std::string> model_error(const std::string& path, int heads = 0) {
  const Bytes bytes = mha::read_file(path);
  try {
    mha::Model::from_model_file(bytes.data(), bytes.size(), mha::WeightLayout::attn_only, heads, "m.safetensors");
  } catch (const mha::Error& e) {
    return {e.code(), e.what()};
  }
  return {"(no error)", ""};
}

}  // namespace

TEST_CASE("a tensor named twice is refused, not read as the last one") {
  CHECK(model_error(repro("inconsistent-files/duplicate_name.safetensors")) ==
        std::pair<std::string, std::string>{
            "safetensors_key_twice",
            "m.safetensors: the header names 'wte.weight' twice, so it cannot be told which is meant"});
  SUBCASE("a key twice anywhere in the header, metadata or a tensor's entry") {
    for (const char* header : {R"({"__metadata__":{"heads":"2","heads":"4"}})",
                               R"({"w":{"dtype":"F32","dtype":"F16","shape":[1],"data_offsets":[0,4]}})"}) {
      CAPTURE(header);
      const Bytes bytes = raw_file(header, f32_bytes({1.0f}));
      CHECK_THROWS_WITH_AS(open(bytes), doctest::Contains("twice"), mha::Error);
    }
  }
}

TEST_CASE("tensors whose bytes overlap are refused, fully or in part") {
  CHECK(model_error(repro("inconsistent-files/overlap.safetensors")).first == "tensors_overlap");
  CHECK(model_error(repro("inconsistent-files/partial_overlap.safetensors")).first == "tensors_overlap");
  // header, and the message (empty: the file reads)
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})",
       "the file: tensors 'a' and 'b' share bytes 0 to 8 of the data section"},
      // one inside another, after a third
      {R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[3],"data_offsets":[4,16]},)"
       R"("c":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}})",
       "the file: tensors 'b' and 'c' share bytes 8 to 12 of the data section"},
      // touching ranges and an empty tensor inside another's bytes are fine
      {R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[8,16]},)"
       R"("e":{"dtype":"F32","shape":[0],"data_offsets":[4,4]}})",
       ""},
  };
  for (const auto& one : cases) {
    const auto& header = one.first;
    const auto& message = one.second;
    CAPTURE(header);
    const Bytes bytes = raw_file(header, Bytes(16));
    CHECK(error_of([&] { open(bytes); }) == (message.empty() ? "<no mha::Error thrown>" : message));
  }
}

TEST_CASE("__metadata__ heads must be a whole number written plainly, and --heads within the limits") {
  CHECK(model_error(repro("inconsistent-files/heads_2abc.safetensors")) ==
        std::pair<std::string, std::string>{
            "metadata_bad_heads", "m.safetensors: __metadata__ heads is '2abc', not a whole number from 1 to 256"});
  const Bytes good = mha::read_file(repro("inconsistent-files/heads_2abc.safetensors"));
  const mha::SafetensorsFile f(good.data(), good.size());
  for (const char* heads : {"1.9", "", "0", "02", " 2", "-2", "257", "1e1", "99999999999"}) {
    CAPTURE(heads);
    mha::SafetensorsWriter w;
    for (const std::string& name : f.names()) w.add(name, f.read_float(name));
    w.set_metadata("heads", heads);
    const Bytes bytes = w.bytes();
    CHECK_THROWS_WITH_AS(mha::Model::from_model_file(bytes.data(), bytes.size(), mha::WeightLayout::attn_only, 0),
                         doctest::Contains("__metadata__ heads is"), mha::Error);
    CHECK_NOTHROW(mha::Model::from_model_file(bytes.data(), bytes.size(), mha::WeightLayout::attn_only, 2));
  }
  for (int heads : {-1, 257, 1 << 30}) {
    CAPTURE(heads);
    CHECK_THROWS_WITH_AS(mha::Model::from_model_file(good.data(), good.size(), mha::WeightLayout::attn_only, heads),
                         ("heads must be between 1 and 256, got " + std::to_string(heads)).c_str(), mha::Error);
  }
}

TEST_CASE("a JSON number too large for a double is one line naming the file, not nlohmann's own message") {
  const Bytes bytes = mha::read_file(repro("json406-minimal.safetensors"));
  CHECK_THROWS_WITH_AS(mha::SafetensorsFile(bytes.data(), bytes.size(), "json406.safetensors"),
                       "json406.safetensors: the header has a number too large to read: 1e400", mha::Error);
}

TEST_CASE("a limit is said with the real size the file asks for, not a clamped one") {
  // 2,000,000 rows of width 1: over kMaxVocab
  const size_t rows = 2000000;
  const std::string header = R"({"wte.weight":{"dtype":"F32","shape":[2000000,1],"data_offsets":[0,8000000]},)"
                             R"("wpe.weight":{"dtype":"F32","shape":[4,1],"data_offsets":[8000000,8000016]}})";
  const Bytes bytes = raw_file(header, Bytes(4 * rows + 16));
  CHECK_THROWS_WITH_AS(mha::Model::from_model_file(bytes.data(), bytes.size(), mha::WeightLayout::attn_only, 1),
                       "the file: vocab_size is 2000000, over the limit of 1048576", mha::Error);
}

TEST_CASE("every error opening a file has a code, the file's name in its params and a single line") {
  // A name with a newline and a tensor name with control characters still give one line.
  const Bytes bytes = raw_file("{\"w\\n\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,8]}}", Bytes(8));
  try {
    mha::SafetensorsFile f(bytes.data(), bytes.size(), "two\nlines.safetensors");
    FAIL("no error");
  } catch (const mha::Error& e) {
    CHECK(e.code() == "tensor_byte_count");
    CHECK(e.field().empty());
    CHECK(e.params().at("file") == "two\\x0Alines.safetensors");
    CHECK(e.params().at("tensor") == "w\\x0A");
    CHECK(std::string(e.what()).find('\n') == std::string::npos);
  }
}
