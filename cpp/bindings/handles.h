// What JavaScript holds: a model and the traces it produced. The handles never throw into
// JavaScript; a failed call returns an empty string / null and keeps the message in last_error(),
// which web/mha.js turns into an exception. The model is left as it was.
#pragma once

#include <emscripten/val.h>

#include <memory>
#include <string>
#include <vector>

#include "text/bpe_tokenizer.h"
#include "train/induction_task.h"
#include "model/model.h"
#include "io/model_builder.h"
#include "model/generate.h"

namespace mha_wasm {

// What every handle keeps of its last failed call, for web/mha.js to throw as MhaError.
class LastError {
 public:
  std::string last_error() const { return last_error_; }
  emscripten::val last_error_info() const { return last_error_info_; }  // {message, field?, code?, params}

 protected:
  template <class T, class Body>
  T run_guarded(T failed, Body body);  // body(), or `failed` with the error kept (handles.cpp)

  std::string last_error_;
  emscripten::val last_error_info_ = emscripten::val::null();
};

// Traces JavaScript has deleted, kept for the model's next run to refill: re-running allocates nothing.
using TracePool = std::vector<mha::Trace>;

class TraceHandle {
 public:
  TraceHandle(mha::Trace trace, mha::Config config, std::weak_ptr<TracePool> pool)
      : trace_(std::move(trace)), config_(config), pool_(std::move(pool)) {}
  ~TraceHandle();
  TraceHandle(const TraceHandle&) = delete;
  TraceHandle& operator=(const TraceHandle&) = delete;

  emscripten::val tokens() const;                  // string[]
  emscripten::val ids() const;                     // Int32Array
  emscripten::val names() const;                   // string[], in stage order
  emscripten::val stage(const std::string& name) const;  // "attend", or null for an unknown name
  emscripten::val layer(const std::string& name) const;  // the block index, -1 model-level, or null
  emscripten::val shape(const std::string& name) const;  // number[], or null
  emscripten::val data(const std::string& name) const;   // a Float32Array copy that outlives memory growth, or null
  // A Float32Array over the tensor in WebAssembly memory, or null: valid only until the module's
  // memory next grows or the trace is deleted, so for copying out of at once (Trace.data(name, into)).
  emscripten::val view(const std::string& name) const;
  emscripten::val config() const;
  void refill(mha::Trace trace, const mha::Config& config) { trace_ = std::move(trace), config_ = config; }
  mha::Trace take() { return std::move(trace_); }
  // head_metrics.h's analysis of every layer as JSON text, or "" when the run had no tokens.
  std::string head_analysis() const;

 private:
  mha::Trace trace_;
  mha::Config config_;
  std::weak_ptr<TracePool> pool_;  // the model's, if it is still alive
};

// GPT-2's tokenizer, loaded from its files' bytes (bpe_files.h): on its own, or given to a model.
class TokenizerHandle : public LastError {
 public:
  // encoder.json / vocab.json and vocab.bpe / merges.txt; the names are for error messages. "" or the error.
  std::string load_vocab_and_merges(const emscripten::val& vocab, const std::string& vocab_name,
                                    const emscripten::val& merges, const std::string& merges_name);
  std::string load_tokenizer_json(const emscripten::val& json, const std::string& name);  // "" or the error
  emscripten::val encode(const std::string& text);  // {tokens: string[], ids: Int32Array}, or null (last_error())
  int vocab_size() const { return tokenizer_ ? tokenizer_->vocab_size() : 0; }
  std::string token_text(int id) const { return tokenizer_ ? tokenizer_->token_text(id) : std::string(); }
  std::shared_ptr<const mha::BpeTokenizer> tokenizer() const { return tokenizer_; }

 private:
  std::shared_ptr<const mha::BpeTokenizer> tokenizer_;
};

class GeneratorHandle;

class ModelHandle : public LastError {
 public:
  ModelHandle();

  std::string configure(const emscripten::val& options);  // "" or the error
  std::string load_weights(const emscripten::val& bytes, const std::string& layout, int layer);
  // A whole model (layout "gpt2" | "attn-only", "" = guessed from the names); heads 0 = from the file.
  std::string load_model(const emscripten::val& bytes, const std::string& layout, int heads);
  std::string use_random_weights(const emscripten::val& options);  // a new seeded model
  emscripten::val model_file() const;  // the weights as safetensors bytes (Uint8Array), models with blocks
  // The tokenizer run_text goes through (shared, so the handle may be deleted after). A loaded model
  // starts without one again. "" or the error (more ids than the model's vocabulary, none loaded).
  std::string set_tokenizer(const TokenizerHandle& tokenizer);
  TraceHandle* run_text(const std::string& text, const emscripten::val& switched_off);
  TraceHandle* run_ids(const emscripten::val& ids, const emscripten::val& switched_off);
  TraceHandle* run_input(const emscripten::val& x, int T);
  // The same refilling `into` in place (its storage reused, nothing allocated for the same sizes):
  // "" or the error, after which into's tensors are unspecified.
  std::string refill_input(TraceHandle& into, const emscripten::val& x, int T);
  bool is_seeded() const { return model_.is_seeded(); }
  void replace(mha::Model model) {  // a model built elsewhere (ModelBuilderHandle)
    changed();
    model_ = std::move(model);
  }
  emscripten::val config() const;
  emscripten::val weight(const std::string& name) const;  // w_q b_q w_k b_k w_v b_v w_o b_o: {shape, data}, or null
  // A generation from `prompt` (a text, through the model's tokenizer, or ids), checked at once; null
  // and last_error() when a check fails. It reads this model, so it stops working (an error naming
  // why) once the model is changed or deleted.
  GeneratorHandle* generator(const emscripten::val& prompt, const emscripten::val& options, const emscripten::val& switched_off);

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
  // header: at least the file's first 8 + N bytes; layout "gpt2" | "attn-only" | "" (guessed); heads 0 = the file's.
  std::string begin(const emscripten::val& header, double file_size, const std::string& layout, int heads);
  emscripten::val needed() const;  // [{name, dtype, begin, end}] in file order, offsets in the whole file
  emscripten::val config() const;  // the model's config as it will be, or null before begin
  std::string add(const std::string& name, const emscripten::val& bytes);  // "" or the error
  std::string finish(ModelHandle& into);  // "" or the error

 private:
  std::unique_ptr<mha::ModelBuilder> builder_;
};

// A training run of the induction task (core/induction_task.h), stepped from JavaScript (a Web
// Worker in the page): the same bits as `mha train` natively for the same recipe.
class TrainerHandle : public LastError {
 public:
  // options: {model: 'attn-only' | 'gpt2', layers, heads, dModel, vocabSize, seed, batch, lr, initStd,
  // minLength, maxLength}; missing keys take `mha train`'s defaults. "" or the error.
  std::string start(const emscripten::val& options);
  emscripten::val step(int count);  // Float32Array of the losses, or null (last_error())
  int steps_done() const { return training_ ? training_->trainer().steps_done() : 0; }
  double induction_score(int sequences) const;  // the phase-change check (InductionTraining)
  emscripten::val model_file() const;  // the weights as safetensors bytes, or the error as a string
  TraceHandle* run_ids(const emscripten::val& ids);

 private:
  std::unique_ptr<mha::InductionTraining> training_;
};

}  // namespace mha_wasm
