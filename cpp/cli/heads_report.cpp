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
  // Each named head's measure beside its chance (head_types.h): what "a head of this type" means here.
  std::string named;
  for (size_t l = 0; l < layers.size(); ++l)
    for (size_t h = 0; h < layers[l].heads.size(); ++h) {
      const mha::HeadMetrics& m = layers[l].heads[h];
      // (a mixed head's measure is that of the type it is nearest, short of what names it)
      if (!m.measure || !m.measure->value) continue;
      const mha::HeadMetrics::TypeMeasure& t = *m.measure;
      char line[160];
      if (t.chance && *t.chance > 0)
        std::snprintf(line, sizeof line, "  %zu.%zu  %-15s %s %.3f, chance %.3f (%.1f×)%s\n", l, h, m.label.c_str(), t.metric.c_str(), *t.value,
                      *t.chance, *t.value / *t.chance, t.type == "positional" ? (" at i − " + std::to_string(static_cast<int>(*m.offset))).c_str() : "");
      else
        std::snprintf(line, sizeof line, "  %zu.%zu  %-15s %s %.3f\n", l, h, m.label.c_str(), t.metric.c_str(), *t.value);
      named += line;
    }
  if (!named.empty())
    out += "\nnamed heads (layer.head, type, its measure beside uniform attention's; a mixed head, the type it is nearest)\n" + named;
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
