#include "predict_report.h"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <vector>

#include "base/error.h"

namespace mha_cli {

std::string token_name(const mha::Trace& trace, const mha::Tokenizer* tokenizer, int32_t id) {
  for (size_t i = 0; i < trace.ids.size() && i < trace.tokens.size(); ++i)
    if (trace.ids[i] == id && trace.tokens[i] != std::to_string(id)) return trace.tokens[i];
  const std::string known = tokenizer ? tokenizer->token_text(id) : std::string();
  return known.empty() ? "#" + std::to_string(id) : known;
}

std::string predict_report(const mha::Trace& trace, int top, const mha::Tokenizer* tokenizer) {
  if (!trace.has("probs")) throw mha::Error("a single attention layer has no logits: predict needs a model with blocks");
  const mha::Tensor& probs = trace.get("probs");
  const int T = static_cast<int>(probs.shape[1]), V = static_cast<int>(probs.shape[2]);
  top = std::max(1, std::min(top, V));
  const auto name = [&](int32_t id) { return token_name(trace, tokenizer, id); };

  std::string out = "next-token prediction, top " + std::to_string(top) + " at each position (✓: the first choice is the token that follows)\n";
  std::vector<int> order(static_cast<size_t>(V));
  int right = 0, known = 0;
  for (int t = 0; t < T; ++t) {
    const float* p = probs.ptr() + static_cast<size_t>(t) * V;
    std::iota(order.begin(), order.end(), 0);
    std::partial_sort(order.begin(), order.begin() + top, order.end(), [p](int a, int b) { return p[a] > p[b] || (p[a] == p[b] && a < b); });
    char head[64];
    std::snprintf(head, sizeof head, "%4d  ", t);
    out += head + name(trace.ids[t]) + "  ->";
    for (int r = 0; r < top; ++r) {
      char cell[32];
      std::snprintf(cell, sizeof cell, " %.3f", p[order[r]]);
      out += "  " + name(order[r]) + cell;
    }
    if (t + 1 < T) {
      const bool ok = order[0] == trace.ids[t + 1];
      right += ok, ++known;
      out += ok ? "  ✓" : "";
    }
    out += "\n";
  }
  if (known > 0)
    out += "first choice right at " + std::to_string(right) + " of " + std::to_string(known) + " positions\n";
  return out;
}

}  // namespace mha_cli
