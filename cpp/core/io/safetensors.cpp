#include "io/safetensors.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>

#include "base/error.h"
#include "io/json_text.h"

namespace mha {

namespace {

using nlohmann::json;

constexpr uint64_t kMaxHeaderBytes = 100u << 20;  // the format's own recommended cap

size_t dtype_size(const std::string& dtype) {
  if (dtype == "F64" || dtype == "I64" || dtype == "U64") return 8;
  if (dtype == "F32" || dtype == "I32" || dtype == "U32") return 4;
  if (dtype == "F16" || dtype == "BF16" || dtype == "I16" || dtype == "U16") return 2;
  if (dtype == "I8" || dtype == "U8" || dtype == "BOOL" || dtype == "F8_E4M3" || dtype == "F8_E5M2") return 1;
  return 0;  // unknown: readable by nobody here, but not a malformed file
}

float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exponent = (h >> 10) & 0x1Fu;
  uint32_t mantissa = h & 0x3FFu;
  uint32_t bits;
  if (exponent == 0x1F) {
    bits = sign | 0x7F800000u | (mantissa << 13);  // inf or NaN
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    bits = sign;
  } else {  // subnormal half: normalise
    exponent = 113;
    while ((mantissa & 0x400u) == 0) {
      mantissa <<= 1;
      --exponent;
    }
    bits = sign | (exponent << 23) | ((mantissa & 0x3FFu) << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

SafetensorsEntry parse_entry(const std::string& file, const std::string& name, const json& j, size_t data_size) {
  const auto bad = [&](ErrorCode code, ErrorParams params = {}) {
    return tensor_error(code, file, name, std::move(params));
  };
  if (!j.is_object()) throw bad(ErrorCode::tensor_not_object);
  if (!j.contains("dtype") || !j["dtype"].is_string()) throw bad(ErrorCode::tensor_no_dtype);
  if (!j.contains("shape") || !j["shape"].is_array()) throw bad(ErrorCode::tensor_no_shape);
  if (!j.contains("data_offsets") || !j["data_offsets"].is_array() || j["data_offsets"].size() != 2)
    throw bad(ErrorCode::tensor_no_offsets);

  SafetensorsEntry e;
  e.dtype = j["dtype"].get<std::string>();
  uint64_t numel = 1;
  for (const auto& dim : j["shape"]) {
    if (!dim.is_number_unsigned()) throw bad(ErrorCode::tensor_bad_shape);
    const uint64_t d = dim.get<uint64_t>();
    if (d != 0 && numel > std::numeric_limits<uint32_t>::max() / d) throw bad(ErrorCode::tensor_shape_too_large);
    numel *= d;
    e.shape.push_back(static_cast<int64_t>(d));
  }
  for (const auto& off : j["data_offsets"])
    if (!off.is_number_unsigned()) throw bad(ErrorCode::tensor_bad_offsets);
  const uint64_t begin = j["data_offsets"][0].get<uint64_t>();
  const uint64_t end = j["data_offsets"][1].get<uint64_t>();
  if (begin > end || end > data_size)
    throw bad(ErrorCode::tensor_outside_data,
              {{"begin", std::to_string(begin)}, {"end", std::to_string(end)}, {"size", std::to_string(data_size)}});
  const size_t width = dtype_size(e.dtype);
  if (width != 0 && end - begin != numel * width)
    throw bad(ErrorCode::tensor_byte_count, {{"bytes", std::to_string(end - begin)},
                                             {"dtype", printable(e.dtype, 16)},
                                             {"shape", shape_to_string(e.shape)},
                                             {"needed", std::to_string(numel * width)}});
  e.begin = static_cast<size_t>(begin);
  e.end = static_cast<size_t>(end);
  return e;
}

// Two tensors reading the same bytes would make one a copy of the other: a file that says so is broken.
void check_no_overlap(const std::string& file, const std::map<std::string, SafetensorsEntry>& entries) {
  std::vector<std::pair<const std::string*, const SafetensorsEntry*>> by_begin;
  for (const auto& [name, e] : entries)
    if (e.end > e.begin) by_begin.push_back({&name, &e});
  std::sort(by_begin.begin(), by_begin.end(),
            [](const auto& a, const auto& b) { return a.second->begin < b.second->begin; });
  for (size_t i = 1, last = 0; i < by_begin.size(); ++i) {  // last: the tensor reaching furthest so far
    const SafetensorsEntry &a = *by_begin[last].second, &b = *by_begin[i].second;
    if (b.begin < a.end)
      throw file_error(ErrorCode::tensors_overlap, file,
                       {{"first", printable(*by_begin[last].first)},
                        {"second", printable(*by_begin[i].first)},
                        {"begin", std::to_string(b.begin)},
                        {"end", std::to_string(std::min(a.end, b.end))}});
    if (b.end > a.end) last = i;
  }
}

}  // namespace

Error file_error(ErrorCode code, const std::string& file, ErrorParams params) {
  params["file"] = printable(file, 200);
  return Error(code, "", std::move(params));
}

Error tensor_error(ErrorCode code, const std::string& file, const std::string& tensor, ErrorParams params) {
  params["tensor"] = printable(tensor);
  return file_error(code, file, std::move(params));
}

void check_finite_values(const std::string& file, const std::string& tensor, const float* values, size_t count,
                         size_t first) {
  const size_t i = first_non_finite(values, count);
  if (i < count)
    throw tensor_error(std::isnan(values[i]) ? ErrorCode::tensor_nan : ErrorCode::tensor_infinite, file, tensor,
                       {{"index", std::to_string(first + i)}});
}

SafetensorsHeader::SafetensorsHeader(const uint8_t* bytes, size_t prefix_size, size_t size, const std::string& name)
    : name_(name) {
  if (size < 8) throw file_error(ErrorCode::safetensors_too_short, name, {{"bytes", std::to_string(size)}});
  if (prefix_size < 8) throw Error("safetensors header: got " + std::to_string(prefix_size) + " bytes of the file, not its first 8");
  uint64_t header_len = 0;
  for (int i = 7; i >= 0; --i) header_len = (header_len << 8) | bytes[i];
  if (header_len > size - 8)
    throw file_error(ErrorCode::safetensors_header_past_end, name,
                     {{"length", std::to_string(header_len)}, {"size", std::to_string(size)}});
  if (header_len > kMaxHeaderBytes)
    throw file_error(ErrorCode::safetensors_header_too_large, name,
                     {{"length", std::to_string(header_len)}, {"max", std::to_string(kMaxHeaderBytes)}});
  if (prefix_size < 8 + header_len)
    throw Error("safetensors header: got " + std::to_string(prefix_size) + " bytes of the file, not its first " +
                std::to_string(8 + header_len));

  const char* header_begin = reinterpret_cast<const char*>(bytes + 8);
  const json header = parse_json_text(header_begin, header_begin + header_len, printable(name, 200),
                                      {ErrorCode::safetensors_header_not_json, ErrorCode::safetensors_number_too_large,
                                       ErrorCode::safetensors_key_twice, ""});
  if (!header.is_object()) throw file_error(ErrorCode::safetensors_header_not_object, name);

  data_begin_ = 8 + static_cast<size_t>(header_len);
  const size_t data_size = size - data_begin_;
  for (const auto& [key, value] : header.items()) {
    if (key == "__metadata__") {
      if (!value.is_object()) throw file_error(ErrorCode::safetensors_metadata_not_object, name);
      for (const auto& [meta, v] : value.items()) {
        if (!v.is_string())
          throw file_error(ErrorCode::safetensors_metadata_not_string, name, {{"key", printable(meta)}});
        metadata_[meta] = v.get<std::string>();
      }
      continue;
    }
    entries_[key] = parse_entry(name, key, value, data_size);
  }
  check_no_overlap(name, entries_);
}

const SafetensorsEntry& SafetensorsHeader::entry(const std::string& name) const {
  auto it = entries_.find(name);
  if (it == entries_.end()) throw tensor_error(ErrorCode::tensor_missing, name_, name);
  return it->second;
}

std::vector<std::string> SafetensorsHeader::names() const {
  std::vector<std::string> out;
  for (const auto& kv : entries_) out.push_back(kv.first);
  return out;
}

FloatDtype float_dtype(const SafetensorsHeader& file, const std::string& tensor) {
  const std::string& dtype = file.entry(tensor).dtype;
  if (dtype == "F32") return FloatDtype::f32;
  if (dtype == "F16") return FloatDtype::f16;
  if (dtype == "BF16") return FloatDtype::bf16;
  throw tensor_error(ErrorCode::tensor_not_float, file.name(), tensor, {{"dtype", printable(dtype, 16)}});
}

size_t float_dtype_size(FloatDtype dtype) { return dtype == FloatDtype::f32 ? 4 : 2; }

float to_float32(const uint8_t* src, FloatDtype dtype) {
  float f;
  if (dtype == FloatDtype::f32) {
    std::memcpy(&f, src, 4);
    return f;
  }
  const uint16_t h = static_cast<uint16_t>(src[0] | (src[1] << 8));
  if (dtype == FloatDtype::f16) return half_to_float(h);
  const uint32_t bits = static_cast<uint32_t>(h) << 16;  // BF16 is float32's top half
  std::memcpy(&f, &bits, 4);
  return f;
}

SafetensorsFile::SafetensorsFile(const uint8_t* bytes, size_t size, const std::string& name)
    : SafetensorsHeader(bytes, size, size, name), data_(bytes + data_begin()) {}

Tensor SafetensorsFile::read_float(const std::string& name) const {
  const SafetensorsEntry& e = entry(name);
  // The dtype is checked before allocating: an unknown dtype's byte count was never checked.
  const FloatDtype dtype = float_dtype(*this, name);
  Tensor t(e.shape);
  const uint8_t* src = data_ + e.begin;
  if (dtype == FloatDtype::f32) {
    if (t.numel() != 0) std::memcpy(t.ptr(), src, t.numel() * 4);
  } else {
    for (size_t i = 0; i < t.numel(); ++i) t.data[i] = to_float32(src + 2 * i, dtype);
  }
  return t;
}

std::vector<int64_t> SafetensorsFile::read_int(const std::string& name) const {
  const SafetensorsEntry& e = entry(name);
  if (e.dtype != "I64" && e.dtype != "I32")
    throw tensor_error(ErrorCode::tensor_not_int, this->name(), name, {{"dtype", printable(e.dtype, 16)}});
  const size_t n = shape_numel(e.shape);
  std::vector<int64_t> out(n);
  const uint8_t* src = data_ + e.begin;
  if (e.dtype == "I64") {
    if (n != 0) std::memcpy(out.data(), src, n * 8);
  } else {
    for (size_t i = 0; i < n; ++i) {
      int32_t v;
      std::memcpy(&v, src + 4 * i, 4);
      out[i] = v;
    }
  }
  return out;
}

void SafetensorsWriter::add(const std::string& name, const Tensor& tensor) {
  Pending p{name, "F32", tensor.shape, std::vector<uint8_t>(tensor.numel() * 4)};
  if (!p.raw.empty()) std::memcpy(p.raw.data(), tensor.ptr(), p.raw.size());
  tensors_.push_back(std::move(p));
}

void SafetensorsWriter::add_int64(const std::string& name, const Shape& shape, const std::vector<int64_t>& values) {
  if (shape_numel(shape) != values.size()) throw Error("tensor '" + name + "' shape does not match its values");
  Pending p{name, "I64", shape, std::vector<uint8_t>(values.size() * 8)};
  if (!p.raw.empty()) std::memcpy(p.raw.data(), values.data(), p.raw.size());
  tensors_.push_back(std::move(p));
}

std::vector<uint8_t> SafetensorsWriter::bytes() const {
  json header = json::object();
  if (!metadata_.empty()) header["__metadata__"] = metadata_;
  size_t offset = 0;
  for (const auto& p : tensors_) {
    header[p.name] = {{"dtype", p.dtype}, {"shape", p.shape}, {"data_offsets", {offset, offset + p.raw.size()}}};
    offset += p.raw.size();
  }
  std::string text = header.dump();
  while ((8 + text.size()) % 8 != 0) text.push_back(' ');  // keeps the data section 8-byte aligned

  size_t total = 8 + text.size();
  for (const auto& p : tensors_) total += p.raw.size();
  std::vector<uint8_t> out(total);
  const uint64_t len = text.size();
  for (int i = 0; i < 8; ++i) out[i] = static_cast<uint8_t>(len >> (8 * i));
  uint8_t* cursor = out.data() + 8;
  std::memcpy(cursor, text.data(), text.size());
  cursor += text.size();
  for (const auto& p : tensors_) {
    if (!p.raw.empty()) std::memcpy(cursor, p.raw.data(), p.raw.size());
    cursor += p.raw.size();
  }
  return out;
}

}  // namespace mha
