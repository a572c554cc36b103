// Read and write the safetensors format (Hugging Face): an 8-byte little-endian header length N,
// N bytes of JSON header, then the raw little-endian tensor data.
// Reading validates everything before handing out a value, so a truncated or hostile file gives
// one clear mha::Error, never a crash.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/tensor.h"

namespace mha {

struct SafetensorsEntry {
  std::string dtype;  // "F32", "F16", "BF16", "I64", ...
  Shape shape;
  size_t begin = 0;   // byte offsets into the data section
  size_t end = 0;
};

// The header alone: what a reader needs to fetch tensors one by one (model_builder.h) without the
// whole file in memory. `prefix` holds at least the file's first 8 + N bytes; `file_size` is the whole
// file's, so every tensor's data_offsets are checked against the data section it will be read from.
class SafetensorsHeader {
 public:
  SafetensorsHeader(const uint8_t* prefix, size_t prefix_size, size_t file_size);  // throws mha::Error

  bool has(const std::string& name) const { return entries_.count(name) != 0; }
  const SafetensorsEntry& entry(const std::string& name) const;  // throws if missing
  std::vector<std::string> names() const;
  const std::map<std::string, std::string>& metadata() const { return metadata_; }
  size_t data_begin() const { return data_begin_; }  // 8 + N: where the data section starts in the file

 private:
  size_t data_begin_ = 0;
  std::map<std::string, SafetensorsEntry> entries_;
  std::map<std::string, std::string> metadata_;
};

// F32, F16 and BF16 to float32, exactly; other dtypes are an error naming `name`.
enum class FloatDtype { f32, f16, bf16 };
FloatDtype float_dtype(const std::string& dtype, const std::string& name);
size_t float_dtype_size(FloatDtype dtype);
float to_float32(const uint8_t* src, FloatDtype dtype);  // one little-endian value

// A whole file in memory: its header and its data.
class SafetensorsFile : public SafetensorsHeader {
 public:
  // Copies nothing: `bytes` must outlive this object. Throws mha::Error if the file is malformed.
  SafetensorsFile(const uint8_t* bytes, size_t size);

  const uint8_t* data_of(const std::string& name) const { return data_ + entry(name).begin; }
  // F32, F16 and BF16 convert exactly to float32; other dtypes are an error naming the tensor.
  Tensor read_float(const std::string& name) const;
  std::vector<int64_t> read_int(const std::string& name) const;  // I64 or I32

 private:
  const uint8_t* data_ = nullptr;  // start of the data section
};

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

// Whole-file helpers for the CLI and tests. write_file_atomically writes a temporary beside the
// target and renames it, so a failure never leaves a half-written file. Its two halves are there for
// files that must appear together: write every PATH.partial first, then move each into place.
std::vector<uint8_t> read_file(const std::string& path);
void write_file_atomically(const std::string& path, const std::vector<uint8_t>& bytes);
std::string write_partial_file(const std::string& path, const std::vector<uint8_t>& bytes);  // -> PATH.partial
void move_into_place(const std::string& partial, const std::string& path);  // removes `partial` if it fails

}  // namespace mha
