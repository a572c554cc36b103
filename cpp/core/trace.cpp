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
  entries_.push_back({stage, std::move(name), std::move(tensor)});
}

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
