#include "handles.h"

#include <exception>

#include "text/bpe_files.h"
#include "base/error.h"
#include "analysis/head_metrics.h"
#include "io/layouts.h"
#include "marshal.h"
#include "io/model_builder.h"
#include "io/model_file.h"
#include "io/safetensors.h"

namespace mha_wasm {

using emscripten::val;

namespace {

// Runs `body`; on failure keeps the message and returns `failed`. std::bad_alloc (a heap that
// cannot grow) is reported like any other error rather than ending the module.
template <class T, class Body>
T guarded(std::string& last_error, T failed, Body body, val* info = nullptr) {
  try {
    last_error.clear();
    return body();
  } catch (const std::bad_alloc&) {
    last_error = "out of memory: try a smaller d_model or a shorter text";
    if (info) *info = val::object(), info->set("message", last_error);
  } catch (const std::exception& e) {
    last_error = e.what();
    if (info) *info = error_info(e);
  }
  return failed;
}

}  // namespace

template <class T, class Body>
T LastError::run_guarded(T failed, Body body) {
  return guarded(last_error_, failed, body, &last_error_info_);
}

TraceHandle::~TraceHandle() {
  if (auto pool = pool_.lock(); pool && pool->size() < 2) pool->push_back(std::move(trace_));
}


val TraceHandle::tokens() const { return string_array(trace_.tokens); }

val TraceHandle::ids() const {
  return int32_array(trace_.ids);
}

val TraceHandle::names() const { return string_array(trace_.names()); }

val TraceHandle::stage(const std::string& name) const {
  const mha::TraceEntry* e = trace_.find(name);
  return e ? val(std::string(mha::stage_name(e->stage))) : val::null();
}

val TraceHandle::layer(const std::string& name) const {
  const mha::TraceEntry* e = trace_.find(name);
  return e ? val(e->layer) : val::null();
}

val TraceHandle::shape(const std::string& name) const {
  const mha::TraceEntry* e = trace_.find(name);
  if (!e) return val::null();
  val out = val::array();
  for (int64_t d : e->tensor.shape) out.call<void>("push", static_cast<double>(d));
  return out;
}

val TraceHandle::data(const std::string& name) const {
  const mha::TraceEntry* e = trace_.find_made(name);
  return e ? float32_array(e->tensor.data) : val::null();
}

val TraceHandle::view(const std::string& name) const {
  const mha::TraceEntry* e = trace_.find_made(name);
  return e ? val(emscripten::typed_memory_view(e->tensor.data.size(), e->tensor.data.data())) : val::null();
}

val TraceHandle::config() const { return config_to_object(config_); }

std::string TraceHandle::head_analysis() const {
  if (trace_.ids.empty()) return "";
  return mha::analysis_to_json(mha::analyse_trace(trace_, config_)).dump();
}

std::string TokenizerHandle::load_vocab_and_merges(const val& vocab, const std::string& vocab_name, const val& merges,
                                                   const std::string& merges_name) {
  run_guarded(false, [&] {
    tokenizer_ = mha::bpe_from_vocab_and_merges(bytes_from_js(vocab), vocab_name, bytes_from_js(merges), merges_name);
    return true;
  });
  return last_error_;
}

std::string TokenizerHandle::load_tokenizer_json(const val& json, const std::string& name) {
  run_guarded(false, [&] {
    tokenizer_ = mha::bpe_from_tokenizer_json(bytes_from_js(json), name);
    return true;
  });
  return last_error_;
}

val TokenizerHandle::encode(const std::string& text) {
  return run_guarded(val::null(), [&] {
    if (!tokenizer_) throw mha::Error("no tokenizer loaded yet");
    return tokenized_object(tokenizer_->tokenize(text));
  });
}

ModelHandle::ModelHandle() : model_(mha::Config{}) {}

std::string ModelHandle::set_tokenizer(const TokenizerHandle& tokenizer) {
  run_guarded(false, [&] {
    changed();
    if (!tokenizer.tokenizer()) throw mha::Error("the tokenizer has no files loaded yet");
    model_.set_tokenizer(tokenizer.tokenizer());
    return true;
  });
  return last_error_;
}

std::string ModelHandle::configure(const val& options) {
  run_guarded(false, [&] {
    changed();
    model_.configure(config_from_options(options, model_.config()));
    return true;
  });
  return last_error_;
}

std::string ModelHandle::load_weights(const val& bytes, const std::string& layout, int layer) {
  run_guarded(false, [&] {
    changed();
    const std::vector<uint8_t> data = bytes_from_js(bytes);
    model_.load_weights(data.data(), data.size(), mha::parse_layout(layout), layer);
    return true;
  });
  return last_error_;
}

mha::Trace ModelHandle::take_trace() {
  if (pool_->empty()) return mha::Trace();
  mha::Trace trace = std::move(pool_->back());
  pool_->pop_back();
  return trace;
}

std::string ModelHandle::load_model(const val& bytes, const std::string& layout, int heads) {
  run_guarded(false, [&] {
    changed();
    const std::vector<uint8_t> data = bytes_from_js(bytes);
    const mha::SafetensorsFile file(data.data(), data.size());
    mha::LoadedModel loaded = mha::read_model(file, mha::whole_model_preset(file, layout), heads);
    model_ = mha::Model::from_loaded(std::move(loaded));
    return true;
  });
  return last_error_;
}

std::string ModelBuilderHandle::begin(const val& header, double file_size, const std::string& layout, int heads) {
  run_guarded(false, [&] {
    if (!(file_size >= 0) || file_size > 9007199254740991.0) throw mha::Error("the file size must be a whole number of bytes");
    const std::vector<uint8_t> prefix = bytes_from_js(header);
    const mha::SafetensorsHeader parsed(prefix.data(), prefix.size(), static_cast<size_t>(file_size));
    builder_.reset();
    builder_ = std::make_unique<mha::ModelBuilder>(parsed, mha::whole_model_preset(parsed, layout), heads);
    return true;
  });
  return last_error_;
}

val ModelBuilderHandle::needed() const {
  val out = val::array();
  if (!builder_) return out;
  for (const mha::TensorRead& r : builder_->needed()) {
    val t = val::object();
    t.set("name", r.name);
    t.set("dtype", r.dtype);
    t.set("begin", static_cast<double>(r.begin));
    t.set("end", static_cast<double>(r.end));
    out.call<void>("push", t);
  }
  return out;
}

val ModelBuilderHandle::config() const {
  return builder_ ? config_to_object(builder_->config()) : val::null();
}

std::string ModelBuilderHandle::add(const std::string& name, const val& bytes) {
  run_guarded(false, [&] {
    if (!builder_) throw mha::Error("begin the model first");
    const std::vector<uint8_t> piece = bytes_from_js(bytes);
    builder_->add(name, piece.data(), piece.size());
    return true;
  });
  return last_error_;
}

std::string ModelBuilderHandle::finish(ModelHandle& into) {
  run_guarded(false, [&] {
    if (!builder_) throw mha::Error("begin the model first");
    mha::LoadedModel loaded = builder_->finish();
    builder_.reset();
    into.replace(mha::Model::from_loaded(std::move(loaded)));
    return true;
  });
  return last_error_;
}

std::string ModelHandle::use_random_weights(const val& options) {
  run_guarded(false, [&] {
    changed();
    model_ = mha::Model(config_from_options(options, model_.config()));
    return true;
  });
  return last_error_;
}

val ModelHandle::model_file() const {
  std::string error;
  std::vector<uint8_t> bytes = guarded(error, std::vector<uint8_t>{}, [&] {
    return mha::write_model(model_.model_weights(), model_.config());
  });
  if (!error.empty()) return val(error);
  return val::global("Uint8Array").new_(emscripten::typed_memory_view(bytes.size(), bytes.data()));
}

TraceHandle* ModelHandle::run_text(const std::string& text, const val& switched_off) {
  return run_guarded(static_cast<TraceHandle*>(nullptr), [&] {
    const mha::HeadGates off = head_switches_from_js(switched_off, model_.config());
    mha::Trace trace = take_trace();
    model_.run_text_into(trace, text, mha::KernelPath::simd, off);
    return new TraceHandle(std::move(trace), model_.config(), pool_);
  });
}

TraceHandle* ModelHandle::run_ids(const val& ids, const val& switched_off) {
  return run_guarded(static_cast<TraceHandle*>(nullptr), [&] {
    const mha::HeadGates off = head_switches_from_js(switched_off, model_.config());
    const std::vector<int32_t> values = ids_from_js(ids);
    mha::Trace trace = take_trace();
    model_.run_ids_into(trace, values, mha::KernelPath::simd, off);
    return new TraceHandle(std::move(trace), model_.config(), pool_);
  });
}

namespace {
// x's values for a single layer of width d: T × d of them.
mha::Tensor input_tensor(const val& x, int T, int d) {
  std::vector<float> values = floats_from_js(x);
  if (T < 1 || values.size() != static_cast<size_t>(T) * d)
    throw mha::Error("x has " + std::to_string(values.size()) + " values; expected T × d_model = " + std::to_string(T) +
                     " × " + std::to_string(d));
  return mha::Tensor({1, T, d}, std::move(values));
}
}  // namespace

TraceHandle* ModelHandle::run_input(const val& x, int T) {
  return run_guarded(static_cast<TraceHandle*>(nullptr), [&] {
    mha::Tensor input = input_tensor(x, T, model_.config().d_model);
    mha::Trace trace = take_trace();
    model_.run_input_into(trace, std::move(input));  // x's values moved, not copied
    return new TraceHandle(std::move(trace), model_.config(), pool_);
  });
}

std::string ModelHandle::refill_input(TraceHandle& into, const val& x, int T) {
  run_guarded(false, [&] {
    mha::Tensor input = input_tensor(x, T, model_.config().d_model);
    mha::Trace trace = into.take();
    model_.run_input_into(trace, std::move(input));
    into.refill(std::move(trace), model_.config());
    return true;
  });
  return last_error_;
}

val ModelHandle::config() const { return config_to_object(model_.config()); }

GeneratorHandle* ModelHandle::generator(const val& prompt, const val& options, const val& switched_off) {
  return run_guarded(static_cast<GeneratorHandle*>(nullptr), [&] {
    const mha::GenerateOptions o = generate_options_from_js(options);
    mha::HeadGates off = head_switches_from_js(switched_off, model_.config());
    mha::Tokenized tokens;
    std::string text;
    if (prompt.isString()) {
      text = prompt.as<std::string>();
      if (!model_.tokenizer())
        throw mha::Error(mha::ErrorCode::needs_tokenizer, "text", {{"model", mha::preset_name(model_.config().preset)}});
      tokens = model_.tokenizer()->tokenize(text);
    } else {
      tokens.ids = ids_from_js(prompt);
    }
    return new GeneratorHandle(model_, alive_, tokens.ids, tokens, text, o, std::move(off));
  });
}

val GeneratorHandle::step() {
  return run_guarded(val::null(), [&] {
    if (alive_.expired()) throw mha::Error("the model was changed or deleted since this generator was made: make a new one");
    const mha::Draw d = generator_.step();
    tokens_.push_back(texts_.add(d.id));
    return draw_numbers(d);
  });
}

val GeneratorHandle::ids() const { return int32_array(generator_.ids()); }

val GeneratorHandle::tokens() const { return string_array(tokens_); }

val ModelHandle::weight(const std::string& name) const {
  if (mha::has_blocks(model_.config().preset)) return val::null();  // a single layer's names
  const mha::AttentionWeights weights = model_.weights();  // unpacked, a copy
  for (const auto& [key, tensor] : mha::named_weights(weights)) {
    if (name != key) continue;
    val out = val::object();
    val shape = val::array();
    for (int64_t d : tensor->shape) shape.call<void>("push", static_cast<double>(d));
    out.set("shape", shape);
    out.set("data", float32_array(tensor->data));
    return out;
  }
  return val::null();
}

std::string TrainerHandle::start(const val& options) {
  run_guarded(false, [&] {
    mha::InductionRecipe r = mha::induction_recipe();
    r.config = config_from_options(options, r.config);
    const auto number = [&](const char* key, double fallback) {
      const val v = options[key];
      if (v.isUndefined() || v.isNull()) return fallback;
      if (!v.isNumber()) throw mha::Error(std::string(key) + " must be a number");
      return v.as<double>();
    };
    r.batch = static_cast<int>(number("batch", r.batch));
    r.adam.lr = static_cast<float>(number("lr", r.adam.lr));
    r.init_std = static_cast<float>(number("initStd", r.init_std));
    r.task.min_length = static_cast<int>(number("minLength", r.task.min_length));
    r.task.max_length = static_cast<int>(number("maxLength", r.task.max_length));
    training_ = std::make_unique<mha::InductionTraining>(r);
    return true;
  });
  return last_error_;
}

val TrainerHandle::step(int count) {
  std::vector<float> losses;
  const bool ok = run_guarded(false, [&] {
    if (!training_) throw mha::Error("start the training first");
    for (int i = 0; i < count; ++i) losses.push_back(training_->step());
    return true;
  });
  return ok ? float32_array(losses) : val::null();
}

double TrainerHandle::induction_score(int sequences) const {
  return training_ ? training_->induction_score(sequences) : 0.0;
}

val TrainerHandle::model_file() const {
  if (!training_) return val(std::string("start the training first"));
  std::string error;
  std::vector<uint8_t> bytes = guarded(error, std::vector<uint8_t>{}, [&] {
    const mha::InductionTraining& t = *training_;
    return mha::write_model(t.trainer().weights(), t.recipe().config, mha::training_metadata(t.recipe(), t.trainer().steps_done()));
  });
  if (!error.empty()) return val(error);
  return val::global("Uint8Array").new_(emscripten::typed_memory_view(bytes.size(), bytes.data()));
}

TraceHandle* TrainerHandle::run_ids(const val& ids) {
  return run_guarded(static_cast<TraceHandle*>(nullptr), [&] {
    if (!training_) throw mha::Error("start the training first");
    const mha::Model model = training_->model();
    return new TraceHandle(model.run_ids(ids_from_js(ids)), model.config(), {});
  });
}

}  // namespace mha_wasm
