// What JavaScript holds: a model and the traces it produced. The handles never throw into
// JavaScript: every method runs through LastError's guard, so a failed call returns its documented
// failure value ("" for a success-or-message method returns the message; null otherwise) and keeps
// the error in last_error(), which web/mha.js turns into an MhaError. The model is left as it was.
// Every argument a caller could get wrong comes as an emscripten::val and is checked here (marshal.h),
// so a wrong type or a fraction is an error naming it, not Embind's conversion of it.
#pragma once

#include <emscripten/val.h>

#include <memory>
#include <string>
#include <vector>

#include "io/model_builder.h"
#include "model/generate.h"
#include "model/model.h"
#include "text/bpe_tokenizer.h"
#include "train/recipe.h"

namespace mha_wasm {

using emscripten::val;

// What every handle keeps of its last failed call, for web/mha.js to throw as MhaError.
class LastError {
 public:
  std::string last_error() const { return last_error_; }
  val last_error_info() const { return last_error_info_; }  // {message, field?, code?, params}

 protected:
  // body(), or `failed` with the error kept; std::bad_alloc (a heap that cannot grow) is reported like
  // any other error rather than ending the module. Const: a failed read of a const handle is kept too.
  template <class T, class Body>
  T run_guarded(T failed, Body body) const;
  // body() for a method that returns "" when it worked and the error's message when it did not.
  template <class Body>
  std::string run_checked(Body body) const;
  // The text of an id in `tokenizer` ('' outside its vocabulary, or with none), or null (last_error()):
  // a tokenizer's and a model's tokenText, one piece of code.
  val token_text_of(const mha::Tokenizer* tokenizer, const val& id) const;

 private:
  // fn(context), true when it returned; false, with the error kept, when it threw. Not a template:
  // the try and its catches are compiled once, not once per method run_guarded wraps.
  bool guard(void (*fn)(void*), void* context) const;
  mutable std::string last_error_;
  mutable val last_error_info_ = val::null();
};

// Traces JavaScript has deleted, kept for the model's next run to refill: re-running allocates nothing.
using TracePool = std::vector<mha::Trace>;

// A tensor named by a name that is not a string, or not in the trace, is null; a tensor that cannot be
// made (an overflow found when it is made) is null with last_error() set.
class TraceHandle : public LastError {
 public:
  // tokenizer: the model's (null for none), kept for the head analysis of its vocabulary.
  TraceHandle(mha::Trace trace, mha::Config config, std::weak_ptr<TracePool> pool,
              std::shared_ptr<const mha::Tokenizer> tokenizer = nullptr)
      : trace_(std::move(trace)), config_(config), pool_(std::move(pool)), tokenizer_(std::move(tokenizer)) {}
  ~TraceHandle();
  TraceHandle(const TraceHandle&) = delete;
  TraceHandle& operator=(const TraceHandle&) = delete;

  val tokens() const;                // string[]
  val ids() const;                   // Int32Array
  val names() const;                 // string[], in stage order
  val stage(const val& name) const;  // "attend", or null
  val layer(const val& name) const;  // the block index, -1 model-level, or null
  val shape(const val& name) const;  // number[], or null
  val data(const val& name) const;   // a Float32Array copy that outlives memory growth, or null
  // A Float32Array over the tensor in WebAssembly memory, or null: valid only until the module's
  // memory next grows or the trace is deleted, so for copying out of at once (Trace.data(name, into)).
  val view(const val& name) const;
  val config() const;
  void refill(mha::Trace trace, const mha::Config& config) { trace_ = std::move(trace), config_ = config, tokenizer_ = nullptr; }
  mha::Trace take() { return std::move(trace_); }
  // head_metrics.h's analysis of every layer as JSON text, "" when the run had no tokens, or null. With
  // the run's tokenizer, so a model of its own vocabulary (chars, words) has its typed heads measured.
  val head_analysis() const;
  // attribution.h's split of one logit (options: {position, token}, each missing or -1 for the last
  // position and its first choice), or of every position's first choice (attributions), as
  // marshal.h's attribution_arrays; null on error (last_error()).
  val attribute(const val& options);
  val attributions();

 private:
  const mha::TraceEntry* entry(const val& name, bool made) const;  // null: no such tensor
  mha::Trace trace_;
  mha::Config config_;
  std::weak_ptr<TracePool> pool_;  // the model's, if it is still alive
  std::shared_ptr<const mha::Tokenizer> tokenizer_;  // the run's, shared: the model may change or go first
};

// GPT-2's tokenizer, loaded from its files' bytes (bpe_files.h): on its own, or given to a model.
class TokenizerHandle : public LastError {
 public:
  // encoder.json / vocab.json and vocab.bpe / merges.txt; the names are for error messages. "" or the error.
  std::string load_vocab_and_merges(const val& vocab, const val& vocab_name, const val& merges, const val& merges_name);
  std::string load_tokenizer_json(const val& json, const val& name);  // "" or the error
  val encode(const val& text) const;                                  // {tokens: string[], ids: Int32Array}, or null
  int vocab_size() const;                                             // 0 before a load (and on an error)
  val token_text(const val& id) const;                                // '' outside the vocabulary, or null
  std::shared_ptr<const mha::BpeTokenizer> tokenizer() const { return tokenizer_; }

 private:
  std::shared_ptr<const mha::BpeTokenizer> tokenizer_;
};

class GeneratorHandle;

class ModelHandle : public LastError {
 public:
  ModelHandle();

  std::string configure(const val& options);  // "" or the error
  // One attention layer; name: the file's, for messages ("" for none). "" or the error.
  std::string load_weights(const val& bytes, const val& layout, const val& layer, const val& name);
  // A whole model (layout "gpt2" | "attn-only", "" = guessed from the names); heads 0 = from
  // config_json (config.json's text, "" = none), the file, or d_model / 64 for gpt2; name: the file's.
  std::string load_model(const val& bytes, const val& layout, const val& heads, const val& name, const val& config_json);
  std::string use_random_weights(const val& options);  // a new seeded model
  val model_file() const;  // the weights as safetensors bytes (Uint8Array), models with blocks; or null
  // The tokenizer run_text goes through (shared, so the handle may be deleted after). A loaded model
  // starts without one again. "" or the error (more ids than the model's vocabulary, none loaded).
  std::string set_tokenizer(const TokenizerHandle& tokenizer);
  bool is_seeded() const;
  // options: {switchedOff} (marshal.h run_options_from_js). Or null.
  TraceHandle* run_text(const val& text, const val& options);
  TraceHandle* run_ids(const val& ids, const val& options);
  TraceHandle* run_input(const val& x, const val& T);
  // The same refilling `into` in place (its storage reused, nothing allocated for the same sizes):
  // "" or the error, after which into's tensors are unspecified.
  std::string refill_input(TraceHandle& into, const val& x, const val& T);
  // importance.h's head importance (marshal.h's importance_object), or null (last_error()): over fresh
  // sequences of the model's task when options.samples is given (from options.seed), else over input
  // (text or ids).
  val head_importance(const val& input, const val& options);
  // pruning.h's curve (prune_object) on options.samples sequences of the task from options.seed, or null.
  val prune(const val& options);
  // circuits.h's scores (marshal.h circuits_object), or null.
  val circuits() const;
  // circuits.h's tables of head `head` of layer `layer` over `input`, a text or ids (head_circuit_object), or null.
  val head_circuit(const val& input, const val& layer, const val& head) const;
  // patching.h's recoveries for options {clean, corrupt, answer, wrong} (marshal.h patch_request_from_js,
  // patch_object), or null.
  val patch(const val& options) const;
  void replace(mha::Model model) {  // a model built elsewhere (ModelBuilderHandle)
    changed();
    model_ = std::move(model);
  }
  val config() const;                 // or null
  // The text of an id in the model's own tokenizer's vocabulary ('<unk>' for a vocabulary's id 0), ''
  // where the tokenizer has no texts of ids (first-appearance, hashed) or there is none; null on error.
  val token_text(const val& id) const;
  val weight(const val& name) const;  // w_q b_q w_k b_k w_v b_v w_o b_o: {shape, data}, or null
  // A generation from `prompt` (a text, through the model's tokenizer, or ids) with `options`
  // (marshal.h generate_options_from_js: sampling and switchedOff), checked at once; null and
  // last_error() when a check fails. It reads this model, so it stops working (an error naming why)
  // once the model is changed or deleted.
  GeneratorHandle* generator(const val& prompt, const val& options);

 private:
  mha::Trace take_trace();  // a recycled trace, or a new one
  void changed() { alive_ = std::make_shared<int>(0); }  // generators of the model as it was stop
  mha::Model model_;
  std::shared_ptr<TracePool> pool_ = std::make_shared<TracePool>();
  std::shared_ptr<int> alive_ = std::make_shared<int>(0);  // held while model_ stays as it is
};

// One generation (core/model/generate.h) stepped from JavaScript: the page draws each step before the next.
class GeneratorHandle : public LastError {
 public:
  GeneratorHandle(const mha::Model& model, std::weak_ptr<int> alive, std::vector<int32_t> prompt,
                  const mha::Tokenized& tokens, const std::string& text, const mha::GenerateOptions& options,
                  mha::HeadGates gates)
      : alive_(std::move(alive)), generator_(model, std::move(prompt), options, std::move(gates)),
        texts_(tokens.tokens, tokens.ids, model.tokenizer(), text), tokens_(tokens.tokens) {
    for (size_t i = tokens_.size(); i < generator_.ids().size(); ++i) tokens_.push_back(texts_.name(generator_.ids()[i]));
  }
  emscripten::val step();  // draw_numbers of the next token, or null (last_error())
  std::string token() const { return tokens_.back(); }  // the last step's token's text
  emscripten::val tokens() const;  // string[]: the text of every id, the prompt's as it read, then the new ones
  bool done() const { return generator_.done(); }
  emscripten::val ids() const;  // Int32Array: the prompt, then every new id
  std::string text() const { return texts_.text(); }
  int prompt_length() const { return generator_.prompt_length(); }
  bool uses_cache() const { return generator_.cache() != nullptr; }
  int cache_length() const { return generator_.cache() ? generator_.cache()->length() : 0; }
  double cache_bytes() const { return generator_.cache() ? static_cast<double>(generator_.cache()->bytes()) : 0.0; }

 private:
  std::weak_ptr<int> alive_;
  mha::Generator generator_;
  mha::TokenTexts texts_;
  std::vector<std::string> tokens_;
};

// A whole model read a tensor at a time (core/model_builder.h): begin with the file's first 8 + N
// bytes, add every needed tensor's bytes (in pieces, in order), finish into a ModelHandle, whose model
// is replaced only then. Each piece is copied once into the model's weights and dropped.
class ModelBuilderHandle : public LastError {
 public:
  // header: at least the file's first 8 + N bytes; layout "gpt2" | "attn-only" | "" (guessed); heads 0 =
  // config_json's (config.json's text, "" = none), the file's, or d_model / 64 for gpt2; name: the
  // file's, for messages ("" for none). "" or the error.
  std::string begin(const val& header, const val& file_size, const val& layout, const val& heads, const val& name,
                    const val& config_json);
  val needed() const;  // [{name, dtype, begin, end}] in file order, offsets in the whole file ([] before begin)
  val config() const;  // the model's config as it will be (and headsFrom), or null before begin
  std::string add(const val& name, const val& bytes);  // "" or the error
  std::string finish(ModelHandle& into);               // "" or the error

 private:
  std::unique_ptr<mha::ModelBuilder> builder_;
};

// A training run of the induction, recall or corpus task (core/train/recipe.h), stepped from
// JavaScript (a Web Worker in the page): the same bits as `mha train` natively for the same recipe.
class TrainerHandle : public LastError {
 public:
  // options: a Trainer's (marshal.h recipe_from_options); missing keys take the task's recipe;
  // corpus: the corpus task's text. "" or the error.
  std::string start(const val& options, const val& corpus);
  val step(const val& count);  // Float32Array of the losses, or null
  int steps_done() const;
  val induction_score(const val& sequences) const;  // the phase-change check (induction task), or null
  // The recall task's scores on its first `sequences` fresh sequences (0: kRecallEvalSequences, as
  // `mha sweep`): {loss, accuracy: [per readout], meanAccuracy, stripe: [per head: [per readout k:
  // mean weight on i − k]]}, or null.
  val recall_scores(const val& sequences) const;
  // The corpus task: the current weights on the first `windows` windows of the held-out text (0: all),
  // {loss, accuracy, targets, windows} as `mha train` reports them (evaluate_heldout), or null.
  val heldout_scores(const val& windows) const;
  // The corpus task: each head measured on the same windows, the mean of their analyses with the
  // corpus's vocabulary (analyse_heldout: `mha heads --heldout`), as a TraceHandle's head_analysis JSON.
  val heldout_heads(const val& windows) const;
  val config() const;                          // the recipe's model config (config_to_object), or null
  val model_file() const;                      // the weights as safetensors bytes, or null
  TraceHandle* run_ids(const val& ids) const;  // or null

 private:
  std::unique_ptr<mha::Training> training_;
};

}  // namespace mha_wasm
