// A whole model (gpt2 or attn-only, under model_file.h's names) built from a safetensors header and
// then its tensors handed in one at a time, so a reader never holds the file: the page reads each
// tensor with Blob.slice and drops it before the next. Each piece is converted (F32/F16/BF16 to
// float32, Conv1D's (in, out) to our (out, in), c_attn split into Q, K, V) straight into the model's
// weights, so memory is the weights once plus one piece. read_model (model_file.h) is this builder
// fed from a file in memory: one loader, one set of errors.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model_file.h"
#include "safetensors.h"

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
  // whole values). mha::Error for a tensor not needed, or bytes past its end.
  void add(const std::string& name, const uint8_t* bytes, size_t size);

  // The model, once every needed tensor is whole and finite; mha::Error otherwise. Call once.
  LoadedModel finish();

 private:
  // Where a file tensor's values go: its (rows, cols) read in order, transposed when `transpose`,
  // the result's rows split evenly among `parts` (c_attn's Q, K and V).
  struct Target {
    FloatDtype dtype = FloatDtype::f32;
    int64_t rows = 0, cols = 1;
    bool transpose = false;
    std::vector<Tensor*> parts;
    Shape part_shape;
    size_t bytes = 0, received = 0;
  };
  void need(const SafetensorsHeader& header, const std::string& name, const Shape& file_shape, bool transpose,
            std::vector<Tensor*> parts, const std::string& missing = "");

  LoadedModel model_;
  std::map<std::string, Target> targets_;
  std::vector<TensorRead> needed_;
  bool finished_ = false;
};

}  // namespace mha
