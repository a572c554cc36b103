// Registers the handles with Embind and nothing else: marshalling lives in marshal.cpp and
// handles.cpp, the idiomatic API (exceptions, defaults) in web/mha.js.
// Compiled twice (CMakeLists.txt): with MHA_PAGE_MODULE, the page's module leaves out what needs
// gradients (the Trainer, headImportance, prune), and the linker then drops the backward pass, AdamW
// and the tasks' data: web/mha.js says so if they are asked of it.
#include <emscripten/bind.h>

#include "handles.h"
#include "marshal.h"

namespace {
// 2 × layers × kv_heads × d_head × bytes per value × tokens (kv_cache.h), as a JavaScript number.
double kv_cache_bytes(int layers, int kv_heads, int d_head, int bytes_per_value, double tokens) {
  return static_cast<double>(mha::kv_cache_bytes(layers, kv_heads, d_head, bytes_per_value, static_cast<int64_t>(tokens)));
}

// Bytes of WebAssembly memory the module holds now: its peak so far, since memory never shrinks.
double memory_bytes() { return static_cast<double>(__builtin_wasm_memory_size(0)) * 65536.0; }

// Embind registers a method on the class its member pointer names: LastError's accessors are
// registered on each handle through these.
template <class Handle>
std::string last_error_of(const Handle& handle) {
  return handle.last_error();
}
template <class Handle>
emscripten::val last_error_info_of(const Handle& handle) {
  return handle.last_error_info();
}
}  // namespace

EMSCRIPTEN_BINDINGS(mha) {
  using namespace emscripten;
  using mha_wasm::ModelHandle;
  using mha_wasm::TraceHandle;
  using mha_wasm::ModelBuilderHandle;
  using mha_wasm::TokenizerHandle;
  using mha_wasm::TrainerHandle;

  class_<TraceHandle>("Trace")
      .function("tokens", &TraceHandle::tokens)
      .function("ids", &TraceHandle::ids)
      .function("names", &TraceHandle::names)
      .function("stage", &TraceHandle::stage)
      .function("layer", &TraceHandle::layer)
      .function("shape", &TraceHandle::shape)
      .function("data", &TraceHandle::data)
      .function("view", &TraceHandle::view)
      .function("config", &TraceHandle::config)
      .function("headAnalysis", &TraceHandle::head_analysis)
      .function("attribute", &TraceHandle::attribute)
      .function("attributions", &TraceHandle::attributions)
      .function("lastError", &last_error_of<TraceHandle>)
      .function("lastErrorInfo", &last_error_info_of<TraceHandle>);

  function("memoryBytes", &memory_bytes);
  function("catalog", &mha_wasm::catalog_text);
  function("errorCodes", &mha_wasm::error_codes);
  function("guessLayout", &mha_wasm::guess_layout_object);

  class_<ModelHandle>("RawModel")
      .constructor<>()
      .function("configure", &ModelHandle::configure)
      .function("loadWeights", &ModelHandle::load_weights)
      .function("loadModel", &ModelHandle::load_model)
      .function("useRandomWeights", &ModelHandle::use_random_weights)
      .function("modelFile", &ModelHandle::model_file)
      .function("setTokenizer", &ModelHandle::set_tokenizer)
      .function("isSeeded", &ModelHandle::is_seeded)
#if !MHA_PAGE_MODULE
      .function("headImportance", &ModelHandle::head_importance)
      .function("prune", &ModelHandle::prune)
#endif
      .function("circuits", &ModelHandle::circuits)
      .function("headCircuit", &ModelHandle::head_circuit)
      .function("patch", &ModelHandle::patch)
      .function("runText", &ModelHandle::run_text, allow_raw_pointers())
      .function("runIds", &ModelHandle::run_ids, allow_raw_pointers())
      .function("runInput", &ModelHandle::run_input, allow_raw_pointers())
      .function("refillInput", &ModelHandle::refill_input)
      .function("config", &ModelHandle::config)
      .function("tokenText", &ModelHandle::token_text)
      .function("weight", &ModelHandle::weight)
      .function("generator", &ModelHandle::generator, allow_raw_pointers())
      .function("lastError", &last_error_of<ModelHandle>)
      .function("lastErrorInfo", &last_error_info_of<ModelHandle>);

  class_<mha_wasm::GeneratorHandle>("RawGenerator")
      .function("step", &mha_wasm::GeneratorHandle::step)
      .function("done", &mha_wasm::GeneratorHandle::done)
      .function("ids", &mha_wasm::GeneratorHandle::ids)
      .function("token", &mha_wasm::GeneratorHandle::token)
      .function("tokens", &mha_wasm::GeneratorHandle::tokens)
      .function("text", &mha_wasm::GeneratorHandle::text)
      .function("promptLength", &mha_wasm::GeneratorHandle::prompt_length)
      .function("usesCache", &mha_wasm::GeneratorHandle::uses_cache)
      .function("cacheLength", &mha_wasm::GeneratorHandle::cache_length)
      .function("cacheBytes", &mha_wasm::GeneratorHandle::cache_bytes)
      .function("lastError", &last_error_of<mha_wasm::GeneratorHandle>)
      .function("lastErrorInfo", &last_error_info_of<mha_wasm::GeneratorHandle>);

  function("kvCacheBytes", &kv_cache_bytes);

  class_<mha_wasm::ModelBuilderHandle>("RawModelBuilder")
      .constructor<>()
      .function("begin", &mha_wasm::ModelBuilderHandle::begin)
      .function("needed", &mha_wasm::ModelBuilderHandle::needed)
      .function("config", &mha_wasm::ModelBuilderHandle::config)
      .function("add", &mha_wasm::ModelBuilderHandle::add)
      .function("finish", &mha_wasm::ModelBuilderHandle::finish)
      .function("lastError", &last_error_of<ModelBuilderHandle>)
      .function("lastErrorInfo", &last_error_info_of<ModelBuilderHandle>);

  class_<mha_wasm::TokenizerHandle>("RawTokenizer")
      .constructor<>()
      .function("loadVocabAndMerges", &mha_wasm::TokenizerHandle::load_vocab_and_merges)
      .function("loadTokenizerJson", &mha_wasm::TokenizerHandle::load_tokenizer_json)
      .function("encode", &mha_wasm::TokenizerHandle::encode)
      .function("vocabSize", &mha_wasm::TokenizerHandle::vocab_size)
      .function("tokenText", &mha_wasm::TokenizerHandle::token_text)
      .function("lastError", &last_error_of<TokenizerHandle>)
      .function("lastErrorInfo", &last_error_info_of<TokenizerHandle>);

#if !MHA_PAGE_MODULE
  class_<mha_wasm::TrainerHandle>("RawTrainer")
      .constructor<>()
      .function("start", &mha_wasm::TrainerHandle::start)
      .function("step", &mha_wasm::TrainerHandle::step)
      .function("stepsDone", &mha_wasm::TrainerHandle::steps_done)
      .function("inductionScore", &mha_wasm::TrainerHandle::induction_score)
      .function("recallScores", &mha_wasm::TrainerHandle::recall_scores)
      .function("heldoutScores", &mha_wasm::TrainerHandle::heldout_scores)
      .function("heldoutHeads", &mha_wasm::TrainerHandle::heldout_heads)
      .function("config", &mha_wasm::TrainerHandle::config)
      .function("modelFile", &mha_wasm::TrainerHandle::model_file)
      .function("runIds", &mha_wasm::TrainerHandle::run_ids, allow_raw_pointers())
      .function("lastError", &last_error_of<TrainerHandle>)
      .function("lastErrorInfo", &last_error_info_of<TrainerHandle>);
#endif
}
