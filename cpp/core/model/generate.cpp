#include "model/generate.h"

#include <limits>
#include <string>

#include "kernels/loss.h"
#include "base/error.h"
#include "text/vocab_tokenizer.h"

namespace mha {

Generator::Generator(const Model& model, std::vector<int32_t> prompt, const GenerateOptions& options, HeadGates gates)
    : model_(model), options_(options), gates_(std::move(gates)), ids_(std::move(prompt)), rng_(options.sampling.seed) {
  const Config& c = model.config();
  if (!has_blocks(c.preset)) throw Error("a single attention layer has no logits: generation needs a model with blocks");
  if (c.readouts > 1) throw Error(ErrorCode::needs_next_token, "model", {{"readouts", std::to_string(c.readouts)}});
  using std::to_string;
  check_range("tokens", options.tokens, 1, c.max_positions);
  check_sampling(options.sampling, c.vocab_size);
  writes_unknown_ = dynamic_cast<const VocabTokenizer*>(model.tokenizer()) == nullptr;
  prompt_length_ = static_cast<int>(ids_.size());
  const int64_t total = static_cast<int64_t>(prompt_length_) + options.tokens;
  if (total > c.max_positions)  // the prompt's own ids are checked by its run, the first step, before any is drawn
    throw Error(ErrorCode::generate_past_positions, "tokens",
                {{"prompt", to_string(prompt_length_)}, {"new", to_string(options.tokens)}, {"total", to_string(total)},
                 {"max", to_string(c.max_positions)}});
  if (options.use_cache) cache_ = std::make_unique<KvCache>(c, static_cast<int>(total));
  ids_.reserve(static_cast<size_t>(total));
}

Draw Generator::step() {
  if (done()) throw Error("the generator has made its " + std::to_string(options_.tokens) + " tokens");
  // With the cache, only what it lacks: the prompt at first, then the last id drawn.
  const size_t seen = cache_ ? static_cast<size_t>(cache_->length()) : 0;
  const std::vector<int32_t> run(ids_.begin() + static_cast<std::ptrdiff_t>(seen), ids_.end());
  model_.run_ids_into(trace_, run, options_.path, gates_, cache_.get());
  const Tensor &logits = trace_.get("logits"), &probs = trace_.get("probs");
  const int V = static_cast<int>(logits.shape[2]);
  const size_t last = (run.size() - 1) * static_cast<size_t>(V);
  const float* row_logits = logits.ptr() + last;
  const float* row_probs = probs.ptr() + last;
  if (!writes_unknown_) {
    // A model with a vocabulary writes words, not <unk> (which stands for every word it lacks): the
    // row without it, its softmax taken again over the rest.
    row_logits_.assign(row_logits, row_logits + V);
    row_logits_[VocabTokenizer::kUnk] = -std::numeric_limits<float>::infinity();
    row_probs_.assign(static_cast<size_t>(V), 0.0f);
    softmax_forward_rows(row_probs_.data(), row_logits_.data(), 1, V);  // the forward's own: the same bits in WebAssembly
    row_logits = row_logits_.data();
    row_probs = row_probs_.data();
  }
  Draw d = draw_next(row_logits, row_probs, V, options_.sampling, rng_, options_.top);
  ids_.push_back(d.id);
  ++made_;
  return d;
}

Generated generate(const Model& model, std::vector<int32_t> prompt, const GenerateOptions& options, HeadGates gates) {
  Generator generator(model, std::move(prompt), options, std::move(gates));
  Generated out;
  while (!generator.done()) out.steps.push_back(generator.step());
  out.ids = generator.ids();
  out.prompt_length = generator.prompt_length();
  return out;
}

}  // namespace mha
