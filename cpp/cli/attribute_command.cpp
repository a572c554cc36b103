#include "attribute_command.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "analysis/attribution.h"
#include "predict_report.h"

namespace mha_cli {

namespace {

struct AttributeOptions {
  int position = -1, token = -1;
  bool json = false;
};

std::string part_name(const mha::LogitPart& p) {
  switch (p.kind) {
    case mha::LogitPart::Kind::embedding: return "embedding (direct path)";
    case mha::LogitPart::Kind::head: return "head " + std::to_string(p.layer) + "." + std::to_string(p.head);
    case mha::LogitPart::Kind::mlp: return "mlp " + std::to_string(p.layer);
    case mha::LogitPart::Kind::bias: return "biases";
  }
  return "";
}

std::string report(const mha::LogitAttribution& a, const Run& r) {
  const mha::Tokenizer* tokenizer = r.model.tokenizer();
  char line[256];
  std::snprintf(line, sizeof line, "logit of %s (id %d) after %s at position %d: %.4f, the sum of\n",
                token_name(r.trace, tokenizer, a.token).c_str(), a.token,
                token_name(r.trace, tokenizer, r.trace.ids.at(static_cast<size_t>(a.position))).c_str(), a.position, a.logit);
  std::string out = line;
  std::vector<mha::LogitPart> ranked = a.parts;
  std::stable_sort(ranked.begin(), ranked.end(), [](const mha::LogitPart& x, const mha::LogitPart& y) {
    return std::fabs(x.value) > std::fabs(y.value);
  });
  double sum = 0;
  for (const mha::LogitPart& p : ranked) {
    std::snprintf(line, sizeof line, "  %-26s %+10.4f\n", part_name(p).c_str(), p.value);
    out += line;
    sum += p.value;
  }
  std::snprintf(line, sizeof line, "  %-26s %+10.4f\n", "sum", sum);
  return out + line;
}

}  // namespace

CLI::App* add_attribute_command(CLI::App& app, RunOptions& o) {
  auto a = std::make_shared<AttributeOptions>();
  CLI::App* cmd = app.add_subcommand(
      "attribute", "split one logit into the embedding's direct path, each head, each MLP and the biases");
  add_run_options(*cmd, o);
  cmd->add_option("--position", a->position, "the position whose next token is scored (default: the last)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--token", a->token, "the token id whose logit is split (default: the first choice there)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--json", a->json, "print {position, token, logit, parts: [{kind, layer?, head?, value}]}");
  cmd->callback([a, &o] {
    const Run r = run(o);
    const mha::LogitAttribution result = mha::attribute_logit(r.trace, r.model.config(), a->position, a->token);
    if (a->json) std::printf("%s\n", mha::attribution_to_json(result).dump(2).c_str());
    else std::fputs(report(result, r).c_str(), stdout);
  });
  return cmd;
}

}  // namespace mha_cli
