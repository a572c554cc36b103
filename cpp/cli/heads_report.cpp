#include "heads_report.h"

#include <cstdio>


namespace mha_cli {

namespace {

std::string cell(const std::optional<double>& v) {
  if (!v) return "     —";
  char buf[16];
  std::snprintf(buf, sizeof buf, "%6.3f", *v);
  return buf;
}

}  // namespace

std::string heads_report(const std::vector<mha::LayerAnalysis>& layers) {
  std::string out =
      "layer head  entropy   self   prev  first  local   dist dist_n  induc    dup  label\n";
  for (size_t l = 0; l < layers.size(); ++l) {
    const mha::LayerAnalysis& a = layers[l];
    for (size_t h = 0; h < a.heads.size(); ++h) {
      const mha::HeadMetrics& m = a.heads[h];
      char head[64];
      std::snprintf(head, sizeof head, "%5zu %4zu  ", l, h);
      out += head + cell(m.entropy) + " " + cell(m.self) + " " + cell(m.previous_token) + " " + cell(m.first_token) + " " +
             cell(m.locality) + " " + cell(m.distance) + " " + cell(m.distance_normalised) + " " + cell(m.induction) + " " +
             cell(m.duplicate_token) + "  " + m.label + "\n";
    }
  }
  for (size_t l = 0; l < layers.size(); ++l) {
    out += "\nlayer " + std::to_string(l) + " head similarity (1 − mean Jensen–Shannon divergence of the rows)\n";
    for (const auto& row : layers[l].similarity) {
      for (const auto& v : row) out += cell(v) + " ";
      out += "\n";
    }
  }
  return out;
}

}  // namespace mha_cli
