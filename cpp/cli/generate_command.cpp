#include "generate_command.h"

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/error.h"
#include "model/generate.h"
#include "run_options.h"

namespace mha_cli {

namespace {

struct GenerateCommand {
  RunOptions run;  // the model (--model, --layout, --heads, --tokenizer) and the prompt (--text, --ids)
  mha::GenerateOptions generate;
  bool no_cache = false, json = false;
};

std::string probability(float p) {
  char text[16];
  std::snprintf(text, sizeof text, "%.3f", p);
  return text;
}

void generate(const GenerateCommand& o) {
  if (!o.run.has_text && o.run.ids.empty()) throw mha::Error("give --text \"...\" or --ids 0,3,17");
  const mha::Model model = open_model(o.run);
  mha::Tokenized prompt;
  if (o.run.has_text) {
    if (!model.tokenizer()) throw mha::Error(mha::ErrorCode::needs_tokenizer, "text", {{"model", mha::preset_name(model.config().preset)}});
    prompt = model.tokenizer()->tokenize(o.run.text);
  } else {
    prompt.ids = parse_ids(o.run.ids);
  }
  mha::GenerateOptions options = o.generate;
  options.use_cache = !o.no_cache;
  mha::Generator generator(model, prompt.ids, options);  // every check happens here, before the first step
  mha::TokenTexts texts(prompt.tokens, prompt.ids, model.tokenizer(), o.run.text);
  std::vector<mha::Draw> steps;
  std::vector<std::string> tokens;
  while (!generator.done()) {
    steps.push_back(generator.step());
    tokens.push_back(texts.add(steps.back().id));
  }
  const mha::KvCache* cache = generator.cache();
  const mha::Config& c = model.config();

  if (o.json) {
    nlohmann::ordered_json out, list = nlohmann::json::array();
    for (size_t s = 0; s < steps.size(); ++s) {
      nlohmann::json top = nlohmann::json::array();
      for (const mha::Candidate& x : steps[s].top) top.push_back({x.id, x.p});
      list.push_back(nlohmann::ordered_json{{"id", steps[s].id}, {"token", tokens[s]}, {"p", steps[s].p},
                                            {"sampled", steps[s].sampled}, {"kept", steps[s].kept}, {"top", top}});
    }
    out["ids"] = generator.ids();
    out["new"] = std::vector<int32_t>(generator.ids().begin() + generator.prompt_length(), generator.ids().end());
    if (o.run.has_text) out["text"] = texts.text();
    out["steps"] = list;
    out["cache"] = cache ? nlohmann::json{{"tokens", cache->length()}, {"bytes", cache->bytes()}} : nlohmann::json(nullptr);
    std::printf("%s\n", out.dump().c_str());
    return;
  }
  const mha::SamplingOptions& s = options.sampling;
  std::string how = s.temperature == 0 ? "greedy (temperature 0)" : "sampled at temperature " + probability(s.temperature);
  if (s.temperature > 0 && s.top_k > 0) how += ", top-k " + std::to_string(s.top_k);
  if (s.temperature > 0 && s.top_p < 1) how += ", top-p " + probability(s.top_p);
  if (s.temperature > 0) how += ", seed " + std::to_string(s.seed);
  std::printf("%s model, %d layers: %d tokens in, %d new, %s; %s\n", mha::preset_name(c.preset), c.layers,
              generator.prompt_length(), options.tokens, how.c_str(),
              cache ? "KV cache on" : "no KV cache (the whole sequence runs again at every step)");
  std::printf("step  position     id  token         p  candidates, best first (p in the distribution drawn from)\n");
  for (size_t i = 0; i < steps.size(); ++i) {
    std::string top;
    for (const mha::Candidate& x : steps[i].top) top += (top.empty() ? "" : " · ") + texts.name(x.id) + " " + probability(x.p);
    if (steps[i].sampled && steps[i].kept < c.vocab_size) top += "  (" + std::to_string(steps[i].kept) + " kept)";
    std::printf("%4zu  %8d  %5d  %-10s %s  %s\n", i + 1, generator.prompt_length() + static_cast<int>(i), steps[i].id,
                nlohmann::json(tokens[i]).dump().c_str(), probability(steps[i].p).c_str(), top.c_str());
  }
  if (o.run.has_text) std::printf("text: %s\n", texts.text().c_str());
  if (cache)
    std::printf("KV cache: 2 × %d layers × %d kv_heads × %d d_head × 4 bytes × %d tokens = %lld bytes\n", cache->layers(),
                cache->kv_heads(), cache->d_head(), cache->length(), static_cast<long long>(cache->bytes()));
}

}  // namespace

CLI::App* add_generate_command(CLI::App& app) {
  auto o = std::make_shared<GenerateCommand>();
  CLI::App* cmd = app.add_subcommand("generate", "continue a text token by token, greedy or sampled, with the KV cache");
  RunOptions& r = o->run;
  cmd->add_option("--model", r.model_path, "safetensors file with a whole model (gpt2 or attn-only layout)")->required();
  cmd->add_option("--layout", r.layout, "names in the file (default: guessed from them)")->check(CLI::IsMember(mha::preset_names(true)));
  cmd->add_option("--heads", r.config.heads, "attention heads (default: the file's __metadata__)")
      ->each([&r](const std::string&) { r.heads_given = true; });
  cmd->add_option("--tokenizer", r.tokenizer_dir, "directory with GPT-2's tokenizer files, for --text on a GPT-2 model");
  auto* text = cmd->add_option("--text", r.text, "the text to continue, through the model's tokenizer")
                   ->each([&r](const std::string&) { r.has_text = true; });
  cmd->add_option("--ids", r.ids, "token ids to continue, e.g. 0,3,17,5: taken as given")->excludes(text);
  mha::GenerateOptions& g = o->generate;
  cmd->add_option("--tokens", g.tokens, "new tokens to make")->required();
  cmd->add_option("--temperature", g.sampling.temperature, "0 = greedy (the likeliest token); above 0, sample softmax(logits / T)");
  cmd->add_option("--top-k", g.sampling.top_k, "sample only among the k likeliest tokens (0 = all)");
  cmd->add_option("--top-p", g.sampling.top_p, "sample only among the fewest likeliest tokens whose probabilities reach p (1 = all)");
  cmd->add_option("--seed", g.sampling.seed, "seed of the draws: the same seed, the same continuation");
  cmd->add_option("--top", g.top, "candidates shown per step")->check(CLI::Range(1, 100));
  cmd->add_flag("--no-cache", o->no_cache, "run the whole sequence again at every step instead of reading the KV cache");
  cmd->add_flag("--json", o->json, "print {ids, new, text, steps: [{id, token, p, sampled, kept, top: [[id, p], …]}], cache}");
  cmd->callback([o] { generate(*o); });
  return cmd;
}

}  // namespace mha_cli
