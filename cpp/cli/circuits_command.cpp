#include "circuits_command.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <utility>
#include <string>

#include "analysis/circuits.h"
#include "analysis/patching.h"
#include "base/error.h"
#include "predict_report.h"
#include "run_options.h"

namespace mha_cli {

namespace {

struct CircuitsOptions {
  RunOptions run;    // --model, --layout, --heads, --tokenizer, --text or --ids
  std::string head;  // "L.H"
  bool json = false;
};

std::string format(const char* pattern, double a) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, pattern, a);
  return buffer;
}

// table[layer][i]: a header of `column` i for every i, then a row a layer.
std::string layer_table(const std::vector<std::vector<double>>& table, const char* column) {
  std::string out = "layer";
  for (size_t i = 0; i < table.at(0).size(); ++i) out += "  " + std::string(column) + format(" %-4.0f", static_cast<double>(i));
  for (size_t l = 0; l < table.size(); ++l) {
    out += "\n" + format("%5.0f", static_cast<double>(l));
    for (double v : table[l]) out += format("  %+8.3f", v);
  }
  return out + "\n";
}

std::string scores_report(const mha::CircuitScores& s) {
  std::string out = "copying score of each head's OV circuit (Σ Re λ / Σ |λ| of W_E W_OV W_U; +1: raises the token it reads)\n" +
                    layer_table(s.copying, "head");
  out += "\ncomposition of head A into head B of a later layer, ‖W_OV^A R‖ / (‖W_OV^A‖ ‖R‖); R = W_QK^B (Q), W_QK^Bᵀ (K), W_OV^B (V)\n";
  out += "random heads' baseline: Q " + format("%.3f", s.baseline[0]) + ", K " + format("%.3f", s.baseline[1]) + ", V " +
         format("%.3f", s.baseline[2]) + "\n    A     B       Q       K       V\n";
  const size_t pairs = s.composition.size() / 3;  // each mode lists the same pairs in the same order
  for (size_t i = 0; i < pairs; ++i) {
    const mha::CompositionScore& e = s.composition[i];
    char line[96];
    std::snprintf(line, sizeof line, "%3d.%-2d %3d.%-2d  %6.3f  %6.3f  %6.3f\n", e.from_layer, e.from_head, e.to_layer, e.to_head,
                  e.score, s.composition[pairs + i].score, s.composition[2 * pairs + i].score);
    out += line;
  }
  return out;
}

// A name right-aligned in 8 columns (cut to 8 bytes).
std::string cell(const std::string& name) { return std::string(name.size() < 8 ? 8 - name.size() : 0, ' ') + name.substr(0, 8); }

// n × n values, each row and column named; above the diagonal left blank when `causal`.
std::string table(const std::vector<double>& values, const std::vector<std::string>& names, bool causal) {
  std::string out = cell("");
  for (const std::string& n : names) out += cell(n);
  const size_t n = names.size();
  for (size_t i = 0; i < n; ++i) {
    out += "\n" + cell(names[i]);
    for (size_t j = 0; j < n; ++j) out += causal && j > i ? cell("") : format("%8.2f", values[i * n + j]);
  }
  return out + "\n";
}

std::string head_report(const mha::HeadCircuit& h, const Run& r) {
  const auto name = [&](int32_t id) { return token_name(r.trace, r.model.tokenizer(), id); };
  std::vector<std::string> positions, tokens;
  for (int t = 0; t < h.positions; ++t) positions.push_back(std::to_string(t) + ":" + name(r.trace.ids[static_cast<size_t>(t)]));
  for (int32_t id : h.tokens) tokens.push_back(name(id));
  const std::string head = std::to_string(h.layer) + "." + std::to_string(h.head);
  std::string out = "\nhead " + head + " QK circuit, positional: W_pos W_QK W_posᵀ (row: query position, column: key position)\n" +
                    table(h.qk_positional, positions, true);
  out += "\nhead " + head + " QK circuit, tokens: W_E W_QK W_Eᵀ (row: query token, column: key token)\n" + table(h.qk_token, tokens, false);
  out += "\nhead " + head + " OV circuit: W_E W_OV W_U (row: the token attended to, column: the token raised)\n" + table(h.ov, tokens, false);
  out += "\ntokens each raises most, of the whole vocabulary\n";
  for (size_t s = 0; s < h.tokens.size(); ++s) {
    out += cell(tokens[s]) + " ->";
    for (const auto& [id, value] : h.ov_top[s]) out += " " + name(id) + format(" %+.2f", value);
    out += "\n";
  }
  return out;
}

// "1.2" -> {1, 2}
std::pair<int, int> parse_head(const std::string& text) {
  const size_t dot = text.find('.');
  try {
    size_t used = 0;
    if (dot == std::string::npos) throw std::invalid_argument(text);
    const int layer = std::stoi(text.substr(0, dot), &used);
    if (used != dot) throw std::invalid_argument(text);
    const int head = std::stoi(text.substr(dot + 1), &used);
    if (used != text.size() - dot - 1) throw std::invalid_argument(text);
    return {layer, head};
  } catch (const std::logic_error&) {
    throw mha::Error("--head takes layer.head, e.g. 1.2; got '" + mha::printable(text, 40) + "'");
  }
}

// A subcommand of a whole model from a file: --model, --layout, --heads, --tokenizer.
CLI::App* model_command(CLI::App& app, const char* name, const char* help, RunOptions& o) {
  CLI::App& cmd = *app.add_subcommand(name, help);
  cmd.add_option("--model", o.model_path, "safetensors file with a whole model (gpt2 or attn-only layout)")->required();
  cmd.add_option("--layout", o.layout, "names in the file (default: guessed from them)")->check(CLI::IsMember(mha::preset_names(true)));
  cmd.add_option("--heads", o.config.heads, "attention heads (default: the file's __metadata__)")
      ->each([&o](const std::string&) { o.heads_given = true; });
  cmd.add_option("--tokenizer", o.tokenizer_dir, "GPT-2's tokenizer files, for text on a gpt2 model");
  return &cmd;
}

}  // namespace

void add_circuits_command(CLI::App& app) {
  auto o = std::make_shared<CircuitsOptions>();
  CLI::App* cmd = model_command(app, "circuits",
                                "each head's copying score and every composition score (Q, K, V) from the weights; with "
                                "--text and --head, that head's QK and OV tables over the text's tokens",
                                o->run);
  cmd->add_option("--text", o->run.text, "text whose tokens the head's tables are over")->each([o](const std::string&) { o->run.has_text = true; });
  cmd->add_option("--ids", o->run.ids, "token ids instead of text, e.g. 0,5,9,23");
  cmd->add_option("--head", o->head, "layer.head whose QK and OV tables to print (with --text or --ids)");
  cmd->add_flag("--json", o->json,
                "print {copying: [{layer, head, score}], composition: [{mode, from, to, score}], baseline: {Q, K, V}}, "
                "and head: {layer, head, tokens, qk_positional, qk_token, ov, ov_top} with --head");
  cmd->callback([o] {
    const bool input = o->run.has_text || !o->run.ids.empty();
    if (input != !o->head.empty()) throw mha::Error("--head goes with --text or --ids, and they with it");
    // With a text, the run's own model: the file is opened (and its weights packed) once.
    std::optional<Run> r;
    std::pair<int, int> shown{0, 0};  // layer, head
    if (input) {
      shown = parse_head(o->head);
      r.emplace(run(o->run));
    }
    std::optional<mha::Model> opened;
    if (!r) opened.emplace(open_model(o->run));
    const mha::Model& weights = r ? r->model : *opened;
    const mha::CircuitScores scores = mha::circuit_scores(weights);
    nlohmann::json json = o->json ? mha::circuits_to_json(scores) : nlohmann::json();
    std::string report = o->json ? "" : scores_report(scores);
    if (r) {
      const mha::HeadCircuit circuit = mha::head_circuit(r->model, r->trace.ids, shown.first, shown.second);
      if (o->json) json["head"] = mha::head_circuit_to_json(circuit);
      else report += head_report(circuit, *r);
    }
    if (o->json) std::printf("%s\n", json.dump(2).c_str());
    else std::fputs(report.c_str(), stdout);
  });
}

namespace {

struct PatchOptions {
  RunOptions run;
  std::string clean, corrupt, clean_ids, corrupt_ids;
  int answer = -1, wrong = -1;
  bool json = false;
};

// texts: the clean and the corrupted run, whose tokens name the answer and the wrong id when they hold them.
std::string patch_report(const mha::PatchResult& p, const mha::Model& model, const std::vector<mha::Trace>& texts) {
  const auto name = [&](int32_t id) {
    for (const mha::Trace& t : texts)
      if (std::find(t.ids.begin(), t.ids.end(), id) != t.ids.end()) return token_name(t, model.tokenizer(), id);
    return token_name(mha::Trace(), model.tokenizer(), id);
  };
  std::string out = "m = logit[" + name(p.answer) + " (id " + std::to_string(p.answer) + ")] − logit[" + name(p.wrong) +
                    " (id " + std::to_string(p.wrong) + ")] at the last position\n";
  out += "m_clean " + format("%+.4f", p.m_clean) + "   m_corrupt " + format("%+.4f", p.m_corrupt) + "\n";
  out += "\nrecovery (m_patched − m_corrupt) / (m_clean − m_corrupt), the corrupted run with one head's z from the clean run\n" +
         layer_table(p.heads, "head");
  return out + "\nthe same with one row of the residual stream entering a block\n" + layer_table(p.residual, "pos");
}

}  // namespace

void add_patch_command(CLI::App& app) {
  auto o = std::make_shared<PatchOptions>();
  CLI::App* cmd = model_command(app, "patch",
                                "activation patching: the corrupted run with each head's z, and each residual row, from "
                                "the clean run; how much of logit[answer] − logit[wrong] each brings back",
                                o->run);
  auto* clean = cmd->add_option("--clean", o->clean, "the clean text");
  auto* corrupt = cmd->add_option("--corrupt", o->corrupt, "the corrupted text, as many tokens as the clean one");
  auto* clean_ids = cmd->add_option("--clean-ids", o->clean_ids, "the clean token ids, e.g. 0,5,9,23,7,5,9,23");
  auto* corrupt_ids = cmd->add_option("--corrupt-ids", o->corrupt_ids, "the corrupted token ids");
  clean->excludes(clean_ids)->excludes(corrupt_ids);
  corrupt->excludes(clean_ids)->excludes(corrupt_ids);
  cmd->add_option("--answer", o->answer, "the token id the clean text should give (default: the clean run's first choice)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--wrong", o->wrong, "the token id it is compared with (default: the corrupted run's first choice; where that is the answer too, the token the change raised most)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--json", o->json,
                "print {answer, wrong, m_clean, m_corrupt, heads: [{layer, head, recovery}], residual: [{layer, position, recovery}]}");
  cmd->callback([o, clean, corrupt, clean_ids, corrupt_ids] {
    const bool texts = clean->count() + corrupt->count() > 0, ids = clean_ids->count() + corrupt_ids->count() > 0;
    if (texts ? clean->count() + corrupt->count() != 2 : clean_ids->count() + corrupt_ids->count() != 2)
      throw mha::Error("give --clean and --corrupt texts, or --clean-ids and --corrupt-ids");
    const mha::Model model = open_model(o->run);
    std::vector<mha::Trace> runs;
    if (!ids) runs = {model.run_text(o->clean), model.run_text(o->corrupt)};
    const mha::PatchResult result =
        ids ? mha::patch_activations(model, parse_ids(o->clean_ids), parse_ids(o->corrupt_ids), o->answer, o->wrong)
            : mha::patch_activations(model, runs[0].ids, runs[1].ids, o->answer, o->wrong);
    if (o->json) std::printf("%s\n", mha::patching_to_json(result).dump(2).c_str());
    else std::fputs(patch_report(result, model, runs).c_str(), stdout);
  });
}

}  // namespace mha_cli
