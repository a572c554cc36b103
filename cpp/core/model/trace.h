// Every intermediate tensor of one forward pass, in order, with its stage, layer and name.
// Names are stable and declared in stages.h: the CLI's trace file, the WASM module and the page use them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/stages.h"
#include "base/tensor.h"

namespace mha {

class Trace;
struct PackedModel;  // weights.h

// How a deferred tensor is made from tensors computed in the run, when it is first read: the
// copies and recomputations (heads split out of q, k and v; the unmasked scores) that a caller
// who reads only y never pays for. The fields mean what `fill` makes of them.
struct Deferred {
  void (*fill)(const Trace& trace, int layer, Tensor& out, const Deferred& how) = nullptr;
  const char* from[2] = {nullptr, nullptr};  // the names of its layer's tensors it is made from
  int B = 1, n = 0, T = 0, D = 0, group = 1, variant = 0;
  float scale = 1.0f;
};

struct TraceEntry {
  Stage stage;
  int layer;         // -1 for model-level tensors (x, logits) and for a single attention layer
  std::string name;  // "q" or, in a model of blocks, "layers.{layer}.q"
  Tensor tensor;     // holds its shape always, its values once made (see Trace::defer)
  Deferred deferred;
  bool pending = false;  // a deferred tensor not made yet
};

class Trace {
 public:
  std::vector<std::string> tokens;  // empty when the pass started from an input tensor
  std::vector<int32_t> ids;
  // The weights of the run as a Model shares them (ForwardOptions::weights): what the deferred
  // tensors that read a weight (head_write reads W_O) and the analyses of a run (attribution.h) read,
  // kept alive with the trace, so a trace outlives its model. Null for a trainer's batches.
  std::shared_ptr<const PackedModel> weights;

  Trace() { entries_.reserve(kDefaultCapacity); }

  // Refilling a trace in place, so a second run allocates nothing: restart() with the most entries
  // the run will make, then slot() for each tensor in stage order (it reuses the storage of the entry
  // at that place when the name matches, leaving its values to be overwritten), then finish() drops
  // entries a shorter run did not reach. A reference from slot() stays valid until finish().
  void restart(size_t capacity = kDefaultCapacity);
  Tensor& slot(Stage stage, int layer, const char* name, const Shape& shape);
  Tensor& slot(Stage stage, const char* name, const Shape& shape) { return slot(stage, -1, name, shape); }
  // A slot whose values are made only when first read (get, find_made, entries), by how.fill.
  void defer(Stage stage, int layer, const char* name, const Shape& shape, const Deferred& how);
  void finish();
  bool has(const std::string& name) const;
  const Tensor& get(const std::string& name) const;  // throws mha::Error for an unknown name
  // Tensor `name` of block `layer` (-1: model-level, or a single layer's), made if it was deferred.
  const Tensor& get(int layer, const char* name) const;
  // The entry named so (its values made), or null. Its stage, layer and shape never need making:
  // find() leaves a deferred tensor as it is.
  const TraceEntry* find_made(const std::string& name) const;
  const TraceEntry* find(const std::string& name) const;
  // Every entry, each deferred one made first.
  const std::vector<TraceEntry>& entries() const;
  // Every entry as it is: a deferred one not read yet is still pending, its values not made.
  const std::vector<TraceEntry>& entries_as_made() const { return entries_; }
  std::vector<std::string> names() const;

 private:
  static constexpr size_t kDefaultCapacity = 32;
  void make(size_t index) const;
  // mutable: reading a deferred tensor makes it, which a reader holding a const Trace may do
  mutable std::vector<TraceEntry> entries_;
  size_t capacity_ = kDefaultCapacity;  // reserved, so slot() never moves an earlier entry
  size_t cursor_ = 0;
};

}  // namespace mha
