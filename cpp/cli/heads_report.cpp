#include "heads_report.h"

#include <cstdio>


namespace mha_cli {

namespace {

std::string cell(const std::optional<double>& v) {
  if (!v) return "      —";
  char buf[16];
  std::snprintf(buf, sizeof buf, "%7.3f", *v);
  return buf;
}

}  // namespace

std::string heads_report(const std::vector<mha::LayerAnalysis>& layers) {
  std::string out = "layer head ";
  char column[16];
  for (const mha::HeadMetricSpec& spec : mha::head_metric_table()) {
    std::snprintf(column, sizeof column, " %7s", spec.abbreviation);
    out += column;
  }
  out += "  label\n";
  for (size_t l = 0; l < layers.size(); ++l) {
    const mha::LayerAnalysis& a = layers[l];
    for (size_t h = 0; h < a.heads.size(); ++h) {
      const mha::HeadMetrics& m = a.heads[h];
      char head[64];
      std::snprintf(head, sizeof head, "%5zu %4zu ", l, h);
      out += head;
      for (const mha::HeadMetricSpec& spec : mha::head_metric_table()) out += " " + cell(m.*spec.value);
      out += "  " + m.label + "\n";
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
