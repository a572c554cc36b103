// A whole model (gpt2 or attn-only, under model_file.h's names) built from a safetensors header and
// then its tensors handed in one at a time, so a reader never holds the file: the page reads each
// tensor with Blob.slice and drops it before the next. Each piece is converted (F32/F16/BF16 to
// float32) straight into the weights as the model keeps them (weights.h's PackedModel): a matrix
// into its packing for the SIMD kernels, where Conv1D's (in, out) is already the packed B = Wᵀ and
// c_attn is already Q, K and V side by side; the vectors into tensors. Which file tensor holds which
// parameters, and where each goes, is parameters.h's table. So memory is the weights once plus one
// piece. read_model (model_file.h) is this builder fed from a file in memory: one loader, one set of
// errors.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "io/config_json.h"
#include "io/safetensors.h"
#include "model/parameters.h"
#include "text/vocab_tokenizer.h"

namespace mha {

// Where a whole model's number of heads came from, first that says: the caller (--heads, a heads
// control), config.json's n_head, the file's __metadata__ "heads" (`mha train` writes it), or for the
// gpt2 layout d_model / kGpt2DHead (every GPT-2 size has d_head 64; a Hugging Face checkpoint's header
// holds only {"format": "pt"}).
enum class HeadsSource { given, config_json, metadata, gpt2_d_head };
const char* heads_source_name(HeadsSource source);  // "given", "config.json", "metadata", "gpt2-d-head"

// A whole model as a file holds it.
struct LoadedModel {
  Config config;  // preset, layers, d_model, heads, vocab, positions read off the file; causal
  PackedModel weights;  // each matrix once, packed as a Model keeps it (unpack_model for tensors)
  // The file says it was trained on ids numbered by first appearance (__metadata__ tokenizer, as
  // `mha train` writes it): it reads text so, whatever its layout.
  bool first_appearance = false;
  // The file carries its own vocabulary (__metadata__ tokenizer "chars" or "words" and "vocabulary",
  // as `mha train --task corpus` writes them): it reads text with it.
  std::shared_ptr<const VocabTokenizer> vocabulary;
  // The file says it was trained on the induction task (`mha train`'s __metadata__: task, or its
  // first-appearance tokenizer, which only that task uses): "induction", "recall", "corpus", else "".
  std::string task;
  HeadsSource heads_from = HeadsSource::given;
};

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
  // before allocating the weights; reads no tensor data. heads: 0 = from `config` (config.json, when
  // given), else __metadata__'s "heads", else d_model / 64 for gpt2 (HeadsSource). A config.json whose
  // sizes differ from the header's (another model's) is an error naming both.
  ModelBuilder(const SafetensorsHeader& header, Preset preset, int heads, const ModelConfigFile* config = nullptr);
  ModelBuilder(const ModelBuilder&) = delete;
  ModelBuilder& operator=(const ModelBuilder&) = delete;

  const Config& config() const { return model_.config; }
  HeadsSource heads_from() const { return model_.heads_from; }
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
  struct Target {
    FileTensorParts parts;  // which parameters the file tensor holds (parameters.h)
    FloatDtype dtype = FloatDtype::f32;
    size_t bytes = 0, received = 0;
  };
  // count values of target t from its flat index `first` on, into place.
  void place(const Target& t, size_t first, const float* values, size_t count);

  std::string file_;  // the file's name, for messages
  LoadedModel model_;
  std::map<std::string, Target> targets_;
  std::vector<TensorRead> needed_;
  bool finished_ = false;
};

}  // namespace mha
