#include "predict_report.h"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <vector>

#include "base/error.h"
#include "text/vocab_tokenizer.h"

namespace mha_cli {

namespace {
const mha::VocabTokenizer* own_vocabulary(const mha::Tokenizer* tokenizer) {
  return dynamic_cast<const mha::VocabTokenizer*>(tokenizer);
}

// A line break or a space as the page shows them (format.js's visibleToken), so a report's line stays one.
std::string visible(const std::string& token) { return token == "\n" ? "↵" : token == " " ? "␣" : token; }

std::string raw_name(const mha::Trace& trace, const mha::Tokenizer* tokenizer, int32_t id) {
  if (own_vocabulary(tokenizer) && id >= 0 && id < tokenizer->vocab_size()) return tokenizer->token_text(id);
  for (size_t i = 0; i < trace.ids.size() && i < trace.tokens.size(); ++i)
    if (trace.ids[i] == id && trace.tokens[i] != std::to_string(id)) return trace.tokens[i];
  const std::string known = tokenizer ? tokenizer->token_text(id) : std::string();
  return known.empty() ? "#" + std::to_string(id) : known;
}
}  // namespace

std::string token_name(const mha::Trace& trace, const mha::Tokenizer* tokenizer, int32_t id) {
  return visible(raw_name(trace, tokenizer, id));
}

std::string predict_report(const mha::Trace& trace, int top, const mha::Tokenizer* tokenizer) {
  if (!trace.has("probs")) throw mha::Error("a single attention layer has no logits: predict needs a model with blocks");
  const mha::Tensor& probs = trace.get("probs");
  // (1, T, V), or (1, T, K, V) for a recall model: readout k − 1 predicts the id k places back
  const int T = static_cast<int>(probs.shape[1]), V = static_cast<int>(probs.shape.back());
  const int K = probs.shape.size() == 4 ? static_cast<int>(probs.shape[2]) : 1;
  top = std::max(1, std::min(top, V));
  const auto name = [&](int32_t id) { return token_name(trace, tokenizer, id); };

  std::string out = K == 1 ? "next-token prediction, top " + std::to_string(top) +
                                 " at each position (✓: the first choice is the token that follows)\n"
                           : "recall prediction, " + std::to_string(K) + " readouts, top " + std::to_string(top) +
                                 " of each (readout i-k: the id k places back; ✓: the first choice is that id)\n";
  const bool vocabulary = own_vocabulary(tokenizer) != nullptr;
  std::vector<int> order(static_cast<size_t>(V));
  int right = 0, known = 0, unknown = 0;
  for (int t = 0; t < T; ++t) {
    char head[64];
    std::snprintf(head, sizeof head, "%4d  ", t);
    // the text as typed (an <unk> shows the word it stood for), else the id's name
    const bool typed = vocabulary && static_cast<size_t>(t) < trace.tokens.size();
    out += head + (typed ? visible(trace.tokens[static_cast<size_t>(t)]) : name(trace.ids[t])) + (K == 1 ? "  ->" : "");
    for (int k = 1; k <= K; ++k) {
      const float* p = probs.ptr() + (static_cast<size_t>(t) * K + k - 1) * V;
      std::iota(order.begin(), order.end(), 0);
      std::partial_sort(order.begin(), order.begin() + top, order.end(),
                        [p](int a, int b) { return p[a] > p[b] || (p[a] == p[b] && a < b); });
      if (K > 1) out += "\n        i-" + std::to_string(k) + " ->";
      for (int r = 0; r < top; ++r) {
        char cell[32];
        std::snprintf(cell, sizeof cell, " %.3f", p[order[r]]);
        out += "  " + name(order[r]) + cell;
      }
      // the id this readout should give: the next one, or the one k places back
      const int target = K == 1 ? t + 1 : t - k;
      if (vocabulary && target >= 0 && target < T && trace.ids[target] == mha::VocabTokenizer::kUnk) {
        ++unknown;
        out += "  (next is <unk>: not scored)";
      } else if (target >= 0 && target < T) {
        const bool ok = order[0] == trace.ids[target];
        right += ok, ++known;
        out += ok ? "  ✓" : "";
      }
    }
    out += "\n";
  }
  if (known > 0)
    out += "first choice right at " + std::to_string(right) + " of " + std::to_string(known) + (K == 1 ? " positions" : " readouts") +
           (unknown ? " (" + std::to_string(unknown) + " whose next token is <unk> not scored)\n" : "\n");
  else if (unknown > 0)  // the page says so too, rather than "right at 0 of 0"
    out += "no position scored: every next token is <unk> (" + std::to_string(unknown) + (unknown == 1 ? " position)\n" : " positions)\n");
  return out;
}

}  // namespace mha_cli
