// Every intermediate tensor of one forward pass, in order, with its stage and name.
// Names are stable: the CLI's trace file, the WASM module and the page's data-tensor use the same ones.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tensor.h"

namespace mha {

// The seven stages, in the order a learner walks them. The names double as the page's data-stage.
enum class Stage { tokenize, embed, project, split, attend, concat, output };
constexpr int kStageCount = 7;
const char* stage_name(Stage stage);

struct TraceEntry {
  Stage stage;
  std::string name;
  Tensor tensor;
};

class Trace {
 public:
  std::vector<std::string> tokens;  // empty when the pass started from an input tensor
  std::vector<int32_t> ids;

  Trace() { entries_.reserve(kMaxEntries); }

  void add(Stage stage, std::string name, Tensor tensor);

  // Refilling a trace in place, so a second run allocates nothing: restart(), then slot() for each
  // tensor in stage order (it reuses the storage of the entry at that place when the name matches,
  // leaving its values to be overwritten), then finish() drops entries a shorter run did not reach.
  // A reference from slot() stays valid until finish().
  void restart();
  Tensor& slot(Stage stage, const char* name, const Shape& shape);
  void finish();
  bool has(const std::string& name) const;
  const Tensor& get(const std::string& name) const;  // throws mha::Error for an unknown name
  const std::vector<TraceEntry>& entries() const { return entries_; }
  std::vector<std::string> names() const;

 private:
  static constexpr size_t kMaxEntries = 32;  // reserved, so slot() never moves an earlier entry
  std::vector<TraceEntry> entries_;
  size_t cursor_ = 0;
};

}  // namespace mha
