// A whole model (gpt2 or attn-only, under model_file.h's names) built from a safetensors header and
// then its tensors handed in one at a time, so a reader never holds the file: the page reads each
// tensor with Blob.slice and drops it before the next. Each piece is converted (F32/F16/BF16 to
// float32) straight into the weights as the model keeps them (transformer.h's PackedModel): a
// matrix into its packing for the SIMD kernels, where Conv1D's (in, out) is already the packed
// B = Wᵀ and c_attn is already Q, K and V side by side; the vectors into tensors. So memory is the
// weights once plus one piece. read_model (model_file.h) is this builder fed from a file in memory:
// one loader, one set of errors.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "io/model_file.h"
#include "io/safetensors.h"

namespace mha {

// One tensor the model needs and where it lies in the file.
struct TensorRead {
  std::string name;
  std::string dtype;  // "F32", "F16" or "BF16"
  size_t begin = 0;   // byte offsets in the whole file (header included), end exclusive
  size_t end = 0;
};

class ModelBuilder {
 public:
  // Checks every name, shape and dtype the model needs against the header, with read_model's errors,
  // before allocating the weights; reads no tensor data. heads: 0 = __metadata__'s "heads".
  ModelBuilder(const SafetensorsHeader& header, Preset preset, int heads);
  ModelBuilder(const ModelBuilder&) = delete;  // targets_ point into model_
  ModelBuilder& operator=(const ModelBuilder&) = delete;

  const Config& config() const { return model_.config; }
  // In file order; tensors the model does not use (Hugging Face's attn.bias masks) are not listed.
  const std::vector<TensorRead>& needed() const { return needed_; }
  size_t needed_bytes() const;  // the sum of needed()'s sizes

  // The next `size` bytes of tensor `name` (pieces of a tensor come in order; any size that holds
  // whole values). mha::Error for a tensor not needed, bytes past its end, or a value that is NaN or
  // infinite (named by its flat index in the file's tensor).
  void add(const std::string& name, const uint8_t* bytes, size_t size);

  // The model, once every needed tensor is whole; mha::Error otherwise. Call once.
  LoadedModel finish();

 private:
  // Where a file tensor's values go, read in order as its (rows, cols): into `parts`, split evenly
  // among them (c_attn.bias: b_Q, b_K, b_V), or into the packing `packed` of B (k, n), where the
  // file's (r, c) is B[r][c] when `file_is_b` (Conv1D's (in, out)) and B[c][r] otherwise ((out, in)).
  struct Target {
    FloatDtype dtype = FloatDtype::f32;
    int64_t rows = 0, cols = 1;
    std::vector<Tensor*> parts;
    Shape part_shape;
    PackedMatrix* packed = nullptr;
    bool file_is_b = false;
    size_t bytes = 0, received = 0;
  };
  Target& need(const SafetensorsHeader& header, const std::string& name, const Shape& file_shape,
               const std::string& missing = "");
  void need_tensors(const SafetensorsHeader& header, const std::string& name, const Shape& file_shape,
                    std::vector<Tensor*> parts, const std::string& missing = "");
  void need_packed(const SafetensorsHeader& header, const std::string& name, const Shape& file_shape,
                   PackedMatrix* packed, bool file_is_b, const std::string& missing = "");
  // count values of target t from its flat index `first` on, into place.
  static void place(Target& t, size_t first, const float* values, size_t count);

  LoadedModel model_;
  std::map<std::string, Target> targets_;
  std::vector<TensorRead> needed_;
  bool finished_ = false;
};

}  // namespace mha
