#include "model/trace.h"

#include <algorithm>
#include <string>

#include "base/error.h"

namespace mha {

void Trace::restart(size_t capacity) {
  // Room for every entry of the last run plus every entry of this one: a run of another model
  // inserts its tensors before the old ones (finish() drops those), so that is the most there can be.
  // The last run counts as at least this one's size, so the first run already leaves room for the
  // second: a second run of the same model then moves nothing (it used to grow the entries here).
  entries_.reserve(std::max(entries_.size(), capacity) + capacity);  // a moved-from trace has lost its reservation
  capacity_ = entries_.capacity();
  cursor_ = 0;
  tokens.clear();
  ids.clear();
}

Tensor& Trace::slot(Stage stage, int layer, const char* base, const Shape& shape) {
  const bool same = cursor_ < entries_.size() && entries_[cursor_].layer == layer &&
                    (layer < 0 ? entries_[cursor_].name == base : base_name(entries_[cursor_].name) == base);
  if (same) {
    TraceEntry& e = entries_[cursor_];
    e.stage = stage;
    e.tensor.shape = shape;
    e.tensor.data.resize(shape_numel(shape));
    e.pending = false;
  } else {
    // Past the reservation an insert would move the entries whose references slot() handed out.
    if (entries_.size() == capacity_) throw Error("internal: a trace was restarted for too few tensors");
    entries_.insert(entries_.begin() + static_cast<std::ptrdiff_t>(cursor_),
                    TraceEntry{stage, layer, layer_name(layer, base), Tensor(shape), Deferred{}, false});
  }
  return entries_[cursor_++].tensor;
}

void Trace::defer(Stage stage, int layer, const char* name, const Shape& shape, const Deferred& how) {
  slot(stage, layer, name, shape);
  TraceEntry& e = entries_[cursor_ - 1];
  e.deferred = how;
  e.pending = true;
}

void Trace::make(size_t index) const {
  TraceEntry& e = entries_[index];
  if (!e.pending) return;
  e.pending = false;  // first: a fill reads other entries, never this one
  try {
    e.deferred.fill(*this, e.layer, e.tensor, e.deferred);
  } catch (...) {
    e.pending = true;  // a fill that failed (an overflow) leaves nothing half-made to read
    throw;
  }
}

void Trace::finish() { entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(cursor_), entries_.end()); }

bool Trace::has(const std::string& name) const { return find(name) != nullptr; }

const Tensor& Trace::get(const std::string& name) const {
  if (const TraceEntry* e = find_made(name)) return e->tensor;
  throw Error("the trace has no tensor named '" + name + "'");
}

const Tensor& Trace::get(int layer, const char* name) const {
  for (size_t i = 0; i < entries_.size(); ++i) {
    const TraceEntry& e = entries_[i];
    if (e.layer == layer && (layer < 0 ? e.name == name : base_name(e.name) == name)) {
      make(i);
      return e.tensor;
    }
  }
  throw Error("internal: the trace has no tensor " + layer_name(layer, name));
}

const TraceEntry* Trace::find(const std::string& name) const {
  for (const auto& e : entries_)
    if (e.name == name) return &e;
  return nullptr;
}

const TraceEntry* Trace::find_made(const std::string& name) const {
  const TraceEntry* e = find(name);
  if (e) make(static_cast<size_t>(e - entries_.data()));
  return e;
}

const std::vector<TraceEntry>& Trace::entries() const {
  for (size_t i = 0; i < entries_.size(); ++i) make(i);
  return entries_;
}

std::vector<std::string> Trace::names() const {
  std::vector<std::string> out;
  for (const auto& e : entries_) out.push_back(e.name);
  return out;
}

}  // namespace mha
