#include "trace.h"

#include "error.h"

namespace mha {

const char* stage_name(Stage stage) {
  switch (stage) {
    case Stage::tokenize: return "tokenize";
    case Stage::embed: return "embed";
    case Stage::project: return "project";
    case Stage::split: return "split";
    case Stage::attend: return "attend";
    case Stage::concat: return "concat";
    case Stage::output: return "output";
  }
  return "?";
}

void Trace::add(Stage stage, std::string name, Tensor tensor) {
  if (entries_.size() == kMaxEntries) throw Error("a trace holds at most 32 tensors");
  entries_.insert(entries_.begin() + static_cast<std::ptrdiff_t>(cursor_++),
                  TraceEntry{stage, std::move(name), std::move(tensor)});
}

void Trace::restart() {
  entries_.reserve(kMaxEntries);  // a moved-from trace has lost its reservation
  cursor_ = 0;
  tokens.clear();
  ids.clear();
}

Tensor& Trace::slot(Stage stage, const char* name, const Shape& shape) {
  if (cursor_ < entries_.size() && entries_[cursor_].name == name) {
    TraceEntry& e = entries_[cursor_];
    e.stage = stage;
    e.tensor.shape = shape;
    e.tensor.data.resize(shape_numel(shape));
  } else {
    if (entries_.size() == kMaxEntries) throw Error("a trace holds at most 32 tensors");
    entries_.insert(entries_.begin() + static_cast<std::ptrdiff_t>(cursor_), TraceEntry{stage, name, Tensor(shape)});
  }
  return entries_[cursor_++].tensor;
}

void Trace::finish() { entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(cursor_), entries_.end()); }

bool Trace::has(const std::string& name) const {
  for (const auto& e : entries_)
    if (e.name == name) return true;
  return false;
}

const Tensor& Trace::get(const std::string& name) const {
  for (const auto& e : entries_)
    if (e.name == name) return e.tensor;
  throw Error("the trace has no tensor named '" + name + "'");
}

std::vector<std::string> Trace::names() const {
  std::vector<std::string> out;
  for (const auto& e : entries_) out.push_back(e.name);
  return out;
}

}  // namespace mha
