#include "shapes_report.h"

#include <cstdio>
#include <map>

namespace mha_cli {

namespace {

const std::map<std::string, std::string>& formulas() {
  static const std::map<std::string, std::string> table = {
      {"token_embedding", "one table row per id"},
      {"position_encoding", "where each token sits"},
      {"x", "token_embedding + position_encoding"},
      {"q", "x · W_Qᵀ + b_Q"},
      {"k", "x · W_Kᵀ + b_K"},
      {"v", "x · W_Vᵀ + b_V"},
      {"q_heads", "q cut into heads"},
      {"k_heads", "k cut into key/value heads"},
      {"v_heads", "v cut into key/value heads"},
      {"scores", "Q·Kᵀ / √d_head"},
      {"weights", "softmax(scores), each row sums to 1"},
      {"head_out", "weights · V"},
      {"concat", "heads side by side again"},
      {"y", "concat · W_Oᵀ + b_O"},
  };
  return table;
}

std::string format(const char* fmt, const std::string& a, const std::string& b, const std::string& c) {
  char buf[512];
  std::snprintf(buf, sizeof buf, fmt, a.c_str(), b.c_str(), c.c_str());
  return buf;
}

}  // namespace

std::string shapes_report(const mha::Trace& trace, const mha::Config& c, const std::string& text) {
  using std::to_string;
  std::string out = "multi-head attention: d_model " + to_string(c.d_model) + ", heads " + to_string(c.heads) +
                    ", d_head " + to_string(c.d_head()) + ", kv_heads " + to_string(c.kv_heads_or_heads()) +
                    (c.causal ? ", causal mask" : ", no mask") + "\n\n";

  int number = 1;
  out += "1 tokenize\n";
  if (trace.tokens.empty()) {
    out += "    (started from an input tensor x)\n";
  } else {
    std::string tokens, ids;
    for (size_t i = 0; i < trace.tokens.size(); ++i) {
      tokens += (i ? " | " : "") + trace.tokens[i];
      ids += (i ? ", " : "") + to_string(trace.ids[i]);
    }
    out += "    \"" + text + "\" -> " + to_string(trace.tokens.size()) + " tokens: " + tokens + "\n";
    out += "    ids: [" + ids + "]\n";
  }

  mha::Stage current = mha::Stage::tokenize;
  for (const mha::TraceEntry& e : trace.entries()) {
    if (e.stage != current) {
      current = e.stage;
      number = static_cast<int>(current) + 1;
      out += to_string(number) + " " + mha::stage_name(current) + "\n";
    }
    out += format("    %-18s %-16s %s\n", e.name, mha::shape_to_string(e.tensor.shape), formulas().at(e.name));
  }

  out += "\nshape flow: " + mha::shape_to_string(trace.get("x").shape) + " -> " +
         mha::shape_to_string(trace.get("q_heads").shape) + " -> " + mha::shape_to_string(trace.get("weights").shape) +
         " -> " + mha::shape_to_string(trace.get("y").shape) + "\n";
  out += "d_model " + to_string(c.d_model) + " = " + to_string(c.heads) + " heads × d_head " + to_string(c.d_head()) +
         ": the heads split the width, they do not copy it\n";
  return out;
}

}  // namespace mha_cli
