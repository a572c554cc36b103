// Every intermediate tensor of one forward pass, in order, with its stage, layer and name.
// Names are stable and declared in stages.h: the CLI's trace file, the WASM module and the page use them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "stages.h"
#include "tensor.h"

namespace mha {

struct TraceEntry {
  Stage stage;
  int layer;         // -1 for model-level tensors (x, logits) and for a single attention layer
  std::string name;  // "q" or, in a model of blocks, "layers.{layer}.q"
  Tensor tensor;
};

class Trace {
 public:
  std::vector<std::string> tokens;  // empty when the pass started from an input tensor
  std::vector<int32_t> ids;

  Trace() { entries_.reserve(kDefaultCapacity); }

  // Refilling a trace in place, so a second run allocates nothing: restart() with the most entries
  // the run will make, then slot() for each tensor in stage order (it reuses the storage of the entry
  // at that place when the name matches, leaving its values to be overwritten), then finish() drops
  // entries a shorter run did not reach. A reference from slot() stays valid until finish().
  void restart(size_t capacity = kDefaultCapacity);
  Tensor& slot(Stage stage, int layer, const char* name, const Shape& shape);
  Tensor& slot(Stage stage, const char* name, const Shape& shape) { return slot(stage, -1, name, shape); }
  void finish();
  bool has(const std::string& name) const;
  const Tensor& get(const std::string& name) const;  // throws mha::Error for an unknown name
  const std::vector<TraceEntry>& entries() const { return entries_; }
  std::vector<std::string> names() const;

 private:
  static constexpr size_t kDefaultCapacity = 32;
  std::vector<TraceEntry> entries_;
  size_t capacity_ = kDefaultCapacity;  // reserved, so slot() never moves an earlier entry
  size_t cursor_ = 0;
};

}  // namespace mha
