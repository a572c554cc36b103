// Read and write the safetensors format (Hugging Face): an 8-byte little-endian header length N,
// N bytes of JSON header, then the raw little-endian tensor data.
// Reading validates everything before handing out a value, so a truncated or hostile file gives
// one clear mha::Error naming the file (error_codes.h), never a crash: a header that is not JSON, a
// name given twice, tensors outside the data or sharing bytes are all refused.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/tensor.h"

namespace mha {

// What a file is called in messages when its name is not known (bytes from elsewhere).
inline constexpr const char* kUnnamedFile = "the file";

struct SafetensorsEntry {
  std::string dtype;  // "F32", "F16", "BF16", "I64", ...
  Shape shape;
  size_t begin = 0;   // byte offsets into the data section
  size_t end = 0;
};

// The header alone: what a reader needs to fetch tensors one by one (model_builder.h) without the
// whole file in memory. `prefix` holds at least the file's first 8 + N bytes; `file_size` is the whole
// file's, so every tensor's data_offsets are checked against the data section it will be read from.
// `name` is the file's, for messages (a path, or the name a learner gave the file).
class SafetensorsHeader {
 public:
  SafetensorsHeader(const uint8_t* prefix, size_t prefix_size, size_t file_size,
                    const std::string& name = kUnnamedFile);  // throws mha::Error

  bool has(const std::string& name) const { return entries_.count(name) != 0; }
  const SafetensorsEntry& entry(const std::string& name) const;  // throws if missing
  std::vector<std::string> names() const;
  const std::map<std::string, std::string>& metadata() const { return metadata_; }
  size_t data_begin() const { return data_begin_; }  // 8 + N: where the data section starts in the file
  const std::string& name() const { return name_; }

 private:
  std::string name_;
  size_t data_begin_ = 0;
  std::map<std::string, SafetensorsEntry> entries_;
  std::map<std::string, std::string> metadata_;
};

// F32, F16 and BF16 to float32, exactly; other dtypes are an error naming the tensor and its file.
enum class FloatDtype { f32, f16, bf16 };
FloatDtype float_dtype(const SafetensorsHeader& file, const std::string& tensor);
size_t float_dtype_size(FloatDtype dtype);
float to_float32(const uint8_t* src, FloatDtype dtype);  // one little-endian value

// A whole file in memory: its header and its data.
class SafetensorsFile : public SafetensorsHeader {
 public:
  // Copies nothing: `bytes` must outlive this object. Throws mha::Error if the file is malformed.
  SafetensorsFile(const uint8_t* bytes, size_t size, const std::string& name = kUnnamedFile);

  const uint8_t* data_of(const std::string& name) const { return data_ + entry(name).begin; }
  // F32, F16 and BF16 convert exactly to float32; other dtypes are an error naming the tensor.
  Tensor read_float(const std::string& name) const;
  std::vector<int64_t> read_int(const std::string& name) const;  // I64 or I32

 private:
  const uint8_t* data_ = nullptr;  // start of the data section
};

// Errors about a file (`code` one of error_codes.h's for files) and about one of its tensors: the
// file's name and the tensor's fill {file} and {tensor}, made printable.
Error file_error(ErrorCode code, const std::string& file, ErrorParams params = {});
Error tensor_error(ErrorCode code, const std::string& file, const std::string& tensor, ErrorParams params = {});
// Throws tensor_nan or tensor_infinite for the first value of values[0, count) that is not finite,
// named by its flat index in the file's tensor (values[0] is index `first`).
void check_finite_values(const std::string& file, const std::string& tensor, const float* values, size_t count,
                         size_t first = 0);

class SafetensorsWriter {
 public:
  void add(const std::string& name, const Tensor& tensor);  // written as F32
  void add_int64(const std::string& name, const Shape& shape, const std::vector<int64_t>& values);
  void set_metadata(const std::string& key, const std::string& value) { metadata_[key] = value; }
  std::vector<uint8_t> bytes() const;

 private:
  struct Pending {
    std::string name, dtype;
    Shape shape;
    std::vector<uint8_t> raw;
  };
  std::vector<Pending> tensors_;
  std::map<std::string, std::string> metadata_;
};

}  // namespace mha
