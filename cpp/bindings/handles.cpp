#include "handles.h"

#include <exception>

#include "text/bpe_files.h"
#include "base/error.h"
#include "analysis/attribution.h"
#include "analysis/head_metrics.h"
#include "analysis/importance.h"
#include "analysis/pruning.h"
#include "io/layouts.h"
#include "io/model_builder.h"
#include "io/model_file.h"
#include "io/safetensors.h"
#include "marshal.h"
#include "text/bpe_files.h"
#include "text/vocab_tokenizer.h"

namespace mha_wasm {

bool LastError::guard(void (*fn)(void*), void* context) const {
  try {
    last_error_.clear();
    last_error_info_ = val::null();
    fn(context);
    return true;
  } catch (const std::bad_alloc&) {
    last_error_ = "out of memory: try a smaller d_model or a shorter text";
    last_error_info_ = val::object();
    last_error_info_.set("message", last_error_);
  } catch (const std::exception& e) {
    last_error_ = e.what();
    last_error_info_ = error_info(e);
  }
  return false;
}

template <class T, class Body>
T LastError::run_guarded(T failed, Body body) const {
  T out = failed;
  auto run = [&] { out = body(); };
  return guard([](void* context) { (*static_cast<decltype(run)*>(context))(); }, &run) ? out : failed;
}

template <class Body>
std::string LastError::run_checked(Body body) const {
  run_guarded(false, [&] {
    body();
    return true;
  });
  return last_error_;
}

namespace {

// A safetensors file's bytes as a Uint8Array JavaScript owns.
val uint8_array(const std::vector<uint8_t>& bytes) {
  return val::global("Uint8Array").new_(emscripten::typed_memory_view(bytes.size(), bytes.data()));
}

}  // namespace

// ---------- TraceHandle ----------

TraceHandle::~TraceHandle() {
  if (auto pool = pool_.lock(); pool && pool->size() < 2) {
    trace_.weights.reset();  // refilled before it is read again: the weights of another model need not wait for it
    pool->push_back(std::move(trace_));
  }
}

const mha::TraceEntry* TraceHandle::entry(const val& name, bool made) const {
  if (!name.isString()) return nullptr;
  const std::string n = name.as<std::string>();
  return made ? trace_.find_made(n) : trace_.find(n);
}

val TraceHandle::tokens() const {
  return run_guarded(val::null(), [&] { return string_array(trace_.tokens); });
}

val TraceHandle::ids() const {
  return run_guarded(val::null(), [&] { return int32_array(trace_.ids); });
}

val TraceHandle::names() const {
  return run_guarded(val::null(), [&] { return string_array(trace_.names()); });
}

val TraceHandle::stage(const val& name) const {
  return run_guarded(val::null(), [&] {
    const mha::TraceEntry* e = entry(name, false);
    return e ? val(std::string(mha::stage_name(e->stage))) : val::null();
  });
}

val TraceHandle::layer(const val& name) const {
  return run_guarded(val::null(), [&] {
    const mha::TraceEntry* e = entry(name, false);
    return e ? val(e->layer) : val::null();
  });
}

val TraceHandle::shape(const val& name) const {
  return run_guarded(val::null(), [&] {
    const mha::TraceEntry* e = entry(name, false);
    if (!e) return val::null();
    val out = val::array();
    for (int64_t d : e->tensor.shape) out.call<void>("push", static_cast<double>(d));
    return out;
  });
}

val TraceHandle::data(const val& name) const {
  return run_guarded(val::null(), [&] {
    const mha::TraceEntry* e = entry(name, true);  // a deferred tensor is made here, and may fail
    return e ? float32_array(e->tensor.data) : val::null();
  });
}

val TraceHandle::view(const val& name) const {
  return run_guarded(val::null(), [&] {
    const mha::TraceEntry* e = entry(name, true);
    return e ? val(emscripten::typed_memory_view(e->tensor.data.size(), e->tensor.data.data())) : val::null();
  });
}

val TraceHandle::config() const {
  return run_guarded(val::null(), [&] { return config_to_object(config_); });
}

val TraceHandle::head_analysis() const {
  return run_guarded(val::null(), [&] {
    if (trace_.ids.empty()) return val(std::string());
    return val(mha::analysis_to_json(mha::analyse_trace(trace_, config_, tokenizer_.get())).dump());
  });
}

val TraceHandle::attribute(const val& options) {
  return run_guarded(val::null(), [&] {
    const mha::AttributeOptions o = attribute_options_from_js(options);
    return attribution_arrays({mha::attribute_logit(trace_, config_, o.position, o.token)});
  });
}

val TraceHandle::attributions() {
  return run_guarded(val::null(), [&] { return attribution_arrays(mha::attribute_each_position(trace_, config_)); });
}

// ---------- TokenizerHandle ----------

std::string TokenizerHandle::load_vocab_and_merges(const val& vocab, const val& vocab_name, const val& merges,
                                                   const val& merges_name) {
  return run_checked([&] {
    tokenizer_ = mha::bpe_from_vocab_and_merges(bytes_from_js(vocab), string_arg(vocab_name, "vocabName"),
                                                bytes_from_js(merges), string_arg(merges_name, "mergesName"));
  });
}

std::string TokenizerHandle::load_tokenizer_json(const val& json, const val& name) {
  return run_checked([&] { tokenizer_ = mha::bpe_from_tokenizer_json(bytes_from_js(json), string_arg(name, "name")); });
}

val TokenizerHandle::encode(const val& text) const {
  return run_guarded(val::null(), [&] {
    if (!tokenizer_) throw mha::Error("no tokenizer loaded yet");
    return tokenized_object(tokenizer_->tokenize(string_arg(text, "text")));
  });
}

int TokenizerHandle::vocab_size() const {
  return run_guarded(0, [&] { return tokenizer_ ? tokenizer_->vocab_size() : 0; });
}

val LastError::token_text_of(const mha::Tokenizer* tokenizer, const val& id) const {
  return run_guarded(val::null(), [&] {
    const int32_t n = static_cast<int32_t>(whole_number_arg(id, "id", -2147483648.0, 2147483647.0));
    return val(tokenizer ? tokenizer->token_text(n) : std::string());
  });
}

val TokenizerHandle::token_text(const val& id) const { return token_text_of(tokenizer_.get(), id); }

// ---------- ModelHandle ----------

ModelHandle::ModelHandle() : model_(mha::Config{}) {}

std::string ModelHandle::set_tokenizer(const TokenizerHandle& tokenizer) {
  return run_checked([&] {
    changed();
    if (!tokenizer.tokenizer()) throw mha::Error("the tokenizer has no files loaded yet");
    model_.set_tokenizer(tokenizer.tokenizer());
  });
}

std::string ModelHandle::configure(const val& options) {
  return run_checked([&] {
    changed();
    model_.configure(config_from_options(options, model_.config()));
  });
}

std::string ModelHandle::load_weights(const val& bytes, const val& layout, const val& layer, const val& name) {
  return run_checked([&] {
    changed();
    const mha::WeightLayout parsed = mha::parse_layout(string_arg(layout, "layout"));
    const int index = static_cast<int>(whole_number_arg(layer, "layer", 0, 999999));
    const std::vector<uint8_t> data = bytes_from_js(bytes);
    model_.load_weights(data.data(), data.size(), parsed, index, file_name_arg(name));
  });
}

mha::Trace ModelHandle::take_trace() {
  if (pool_->empty()) return mha::Trace();
  mha::Trace trace = std::move(pool_->back());
  pool_->pop_back();
  return trace;
}

std::string ModelHandle::load_model(const val& bytes, const val& layout, const val& heads, const val& name,
                                    const val& config_json) {
  return run_checked([&] {
    const std::string chosen = string_arg(layout, "layout");
    const int count = static_cast<int>(whole_number_arg(heads, "heads", 0, mha::kMaxHeads));
    const std::optional<mha::ModelConfigFile> config = config_json_arg(config_json);
    changed();
    const std::vector<uint8_t> data = bytes_from_js(bytes);
    const mha::SafetensorsFile file(data.data(), data.size(), file_name_arg(name));
    model_ = mha::Model::from_loaded(
        mha::read_model(file, mha::whole_model_preset(file, chosen), count, config ? &*config : nullptr));
  });
}

std::string ModelHandle::use_random_weights(const val& options) {
  return run_checked([&] {
    changed();
    model_ = mha::Model(config_from_options(options, model_.config()));
  });
}

val ModelHandle::model_file() const {
  return run_guarded(val::null(),
                     [&] { return uint8_array(mha::write_model(model_.model_weights(), model_.config())); });
}

bool ModelHandle::is_seeded() const {
  return run_guarded(false, [&] { return model_.is_seeded(); });
}

TraceHandle* ModelHandle::run_text(const val& text, const val& options) {
  return run_guarded(static_cast<TraceHandle*>(nullptr), [&] {
    const std::string words = string_arg(text, "text");
    const mha::HeadGates off = run_options_from_js(options, model_.config());
    mha::Trace trace = take_trace();
    model_.run_text_into(trace, words, mha::KernelPath::simd, off);
    return new TraceHandle(std::move(trace), model_.config(), pool_, model_.shared_tokenizer());
  });
}

TraceHandle* ModelHandle::run_ids(const val& ids, const val& options) {
  return run_guarded(static_cast<TraceHandle*>(nullptr), [&] {
    const mha::HeadGates off = run_options_from_js(options, model_.config());
    const std::vector<int32_t> values = ids_from_js(ids);
    mha::Trace trace = take_trace();
    model_.run_ids_into(trace, values, mha::KernelPath::simd, off);
    return new TraceHandle(std::move(trace), model_.config(), pool_, model_.shared_tokenizer());
  });
}

namespace {
// x's values for a single layer of width d: T × d of them.
mha::Tensor input_tensor(const val& x, const val& T_value, int d) {
  const int T = static_cast<int>(whole_number_arg(T_value, "T", 1, mha::kMaxSeq));
  std::vector<float> values = floats_from_js(x);
  if (values.size() != static_cast<size_t>(T) * d)
    throw mha::Error("x has " + std::to_string(values.size()) + " values; expected T × d_model = " + std::to_string(T) +
                     " × " + std::to_string(d));
  return mha::Tensor({1, T, d}, std::move(values));
}
}  // namespace

TraceHandle* ModelHandle::run_input(const val& x, const val& T) {
  return run_guarded(static_cast<TraceHandle*>(nullptr), [&] {
    mha::Tensor input = input_tensor(x, T, model_.config().d_model);
    mha::Trace trace = take_trace();
    model_.run_input_into(trace, std::move(input));  // x's values moved, not copied
    return new TraceHandle(std::move(trace), model_.config(), pool_);
  });
}

std::string ModelHandle::refill_input(TraceHandle& into, const val& x, const val& T) {
  return run_checked([&] {
    mha::Tensor input = input_tensor(x, T, model_.config().d_model);
    mha::Trace trace = into.take();
    model_.run_input_into(trace, std::move(input));
    into.refill(std::move(trace), model_.config());
  });
}

namespace {
// options.samples fresh sequences of the model's task from options.seed (importance.h's defaults when
// missing), or none when samples is missing and `defaults` is false. A model of real text has no task
// to draw from (its own vocabulary: the CLI reads its held-out excerpt, which the module has not):
// refused, never the induction task's ids over its vocabulary.
std::vector<mha::TaskSample> samples_of(const mha::Model& model, const val& options, bool defaults) {
  mha::TaskSampleOptions o = task_samples_from_js(options);
  if (o.samples == 0 && defaults) o.samples = mha::kImportanceSamples;
  if (o.samples == 0) return {};
  if (dynamic_cast<const mha::VocabTokenizer*>(model.tokenizer())) throw mha::Error(mha::ErrorCode::samples_of_real_text, "samples");
  return mha::task_samples(model.config(), o.samples, o.seed);
}
}  // namespace

val ModelHandle::head_importance(const val& input, const val& options) {
  return run_guarded(val::null(), [&] {
    std::vector<mha::TaskSample> samples = samples_of(model_, options, false);
    if (samples.empty()) {
      if (input.isUndefined() || input.isNull()) throw mha::Error("give a text, ids, or {samples} of the model's task");
      samples.push_back(mha::next_token_sample(input.isString() ? model_.run_text(input.as<std::string>()).ids : ids_from_js(input),
                                                model_.config().readouts));
    }
    return importance_object(mha::head_importance(model_, samples));
  });
}

val ModelHandle::prune(const val& options) {
  return run_guarded(val::null(), [&] { return prune_object(mha::prune_heads(model_, samples_of(model_, options, true))); });
}

val ModelHandle::circuits() const {
  return run_guarded(val::null(), [&] { return circuits_object(mha::circuit_scores(model_)); });
}

val ModelHandle::head_circuit(const val& input, const val& layer, const val& head) const {
  return run_guarded(val::null(), [&] {
    const std::vector<int32_t> ids = input_ids_from_js(input, model_, "input");
    const int l = static_cast<int>(whole_number_arg(layer, "layer", 0, mha::kMaxLayers));
    const int h = static_cast<int>(whole_number_arg(head, "head", 0, mha::kMaxHeads));
    return head_circuit_object(mha::head_circuit(model_, ids, l, h));
  });
}

val ModelHandle::patch(const val& options) const {
  return run_guarded(val::null(), [&] {
    const PatchRequest r = patch_request_from_js(options, model_);
    return patch_object(mha::patch_activations(model_, r.clean, r.corrupt, r.options.answer, r.options.wrong));
  });
}

val ModelHandle::token_text(const val& id) const { return token_text_of(model_.tokenizer(), id); }

val ModelHandle::config() const {
  return run_guarded(val::null(), [&] { return model_config_object(model_.config(), model_.facts()); });
}

val ModelHandle::weight(const val& name) const {
  return run_guarded(val::null(), [&] {
    if (mha::has_blocks(model_.config().preset) || !name.isString()) return val::null();  // a single layer's names
    const std::string wanted = name.as<std::string>();
    const mha::AttentionWeights weights = model_.weights();  // unpacked, a copy
    for (const auto& [key, tensor] : mha::named_weights(weights)) {
      if (wanted != key) continue;
      val out = val::object();
      val shape = val::array();
      for (int64_t d : tensor->shape) shape.call<void>("push", static_cast<double>(d));
      out.set("shape", shape);
      out.set("data", float32_array(tensor->data));
      return out;
    }
    return val::null();
  });
}

GeneratorHandle* ModelHandle::generator(const val& prompt, const val& options) {
  return run_guarded(static_cast<GeneratorHandle*>(nullptr), [&] {
    GenerateRequest o = generate_options_from_js(options, model_.config());
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
    return new GeneratorHandle(model_, alive_, tokens.ids, tokens, text, o.options, std::move(o.switched_off));
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

val GeneratorHandle::ids() const {
  return run_guarded(val::null(), [&] { return int32_array(generator_.ids()); });
}

val GeneratorHandle::tokens() const {
  return run_guarded(val::null(), [&] { return string_array(tokens_); });
}

// ---------- ModelBuilderHandle ----------

std::string ModelBuilderHandle::begin(const val& header, const val& file_size, const val& layout, const val& heads,
                                      const val& name, const val& config_json) {
  return run_checked([&] {
    const double size = whole_number_arg(file_size, "fileSize", 0, 9007199254740991.0);
    const std::string chosen = string_arg(layout, "layout");
    const int count = static_cast<int>(whole_number_arg(heads, "heads", 0, mha::kMaxHeads));
    const std::optional<mha::ModelConfigFile> config = config_json_arg(config_json);
    const std::vector<uint8_t> prefix = bytes_from_js(header);
    const mha::SafetensorsHeader parsed(prefix.data(), prefix.size(), static_cast<size_t>(size), file_name_arg(name));
    builder_.reset();
    builder_ = std::make_unique<mha::ModelBuilder>(parsed, mha::whole_model_preset(parsed, chosen), count,
                                                   config ? &*config : nullptr);
  });
}

val ModelBuilderHandle::needed() const {
  return run_guarded(val::null(), [&] {
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
  });
}

val ModelBuilderHandle::config() const {
  return run_guarded(val::null(), [&] {
    if (!builder_) return val::null();
    val o = config_to_object(builder_->config());
    o.set("headsFrom", std::string(mha::heads_source_name(builder_->heads_from())));
    return o;
  });
}

std::string ModelBuilderHandle::add(const val& name, const val& bytes) {
  return run_checked([&] {
    if (!builder_) throw mha::Error("begin the model first");
    const std::string tensor = string_arg(name, "name");
    const std::vector<uint8_t> piece = bytes_from_js(bytes);
    builder_->add(tensor, piece.data(), piece.size());
  });
}

std::string ModelBuilderHandle::finish(ModelHandle& into) {
  return run_checked([&] {
    if (!builder_) throw mha::Error("begin the model first");
    mha::LoadedModel loaded = builder_->finish();
    builder_.reset();
    into.replace(mha::Model::from_loaded(std::move(loaded)));
  });
}

// ---------- TrainerHandle ----------

std::string TrainerHandle::start(const val& options, const val& corpus) {
  return run_checked([&] { training_ = std::make_unique<mha::Training>(recipe_from_options(options, corpus)); });
}

val TrainerHandle::step(const val& count) {
  return run_guarded(val::null(), [&] {
    if (!training_) throw mha::Error("start the training first");
    const int n = static_cast<int>(whole_number_arg(count, "count", 1, 1e6));
    std::vector<float> losses;
    for (int i = 0; i < n; ++i) losses.push_back(training_->step());
    return float32_array(losses);
  });
}

int TrainerHandle::steps_done() const {
  return run_guarded(0, [&] { return training_ ? training_->trainer().steps_done() : 0; });
}

val TrainerHandle::induction_score(const val& sequences) const {
  return run_guarded(val::null(), [&] {
    if (!training_) throw mha::Error("start the training first");
    return val(training_->induction_score(
        static_cast<int>(whole_number_arg(sequences, "sequences", 1, mha::kMaxEvalSequences))));
  });
}

val TrainerHandle::recall_scores(const val& sequences) const {
  return run_guarded(val::null(), [&] {
    if (!training_) throw mha::Error("start the training first");
    const int n = static_cast<int>(whole_number_arg(sequences, "sequences", 0, mha::kMaxEvalSequences));
    const mha::RecallScores s = training_->recall_scores(n > 0 ? n : mha::kRecallEvalSequences);
    val out = val::object();
    out.set("loss", s.loss);
    out.set("meanAccuracy", s.mean_accuracy);
    val accuracy = val::array(), stripe = val::array();
    for (double a : s.accuracy) accuracy.call<void>("push", a);
    for (const std::vector<double>& head : s.stripe) {
      val row = val::array();
      for (double v : head) row.call<void>("push", v);
      stripe.call<void>("push", row);
    }
    out.set("accuracy", accuracy);
    out.set("stripe", stripe);
    return out;
  });
}

// The corpus recipe whose held-out text is read, and the windows asked for (0: all).
static const mha::Recipe& heldout_recipe(const std::unique_ptr<mha::Training>& training, const val& windows, int& n) {
  if (!training) throw mha::Error("start the training first");
  const mha::Recipe& r = training->recipe();
  if (r.task != mha::TaskKind::corpus) throw mha::Error("held-out text is the corpus task's");
  if (r.corpus.data->heldout.size() <= static_cast<size_t>(r.corpus.length))
    throw mha::Error("the held-out text is shorter than one window of " + std::to_string(r.corpus.length + 1) + " tokens");
  n = static_cast<int>(whole_number_arg(windows, "windows", 0, 1e6));
  return r;
}

val TrainerHandle::heldout_scores(const val& windows) const {
  return run_guarded(val::null(), [&] {
    int n = 0;
    const mha::Recipe& r = heldout_recipe(training_, windows, n);
    const mha::HeldoutScores s = mha::evaluate_heldout(training_->model(), r.corpus.data->heldout, r.corpus.length, n);
    val out = val::object();
    out.set("loss", s.loss);
    out.set("accuracy", s.accuracy);
    out.set("targets", static_cast<double>(s.targets));
    out.set("windows", s.windows);
    return out;
  });
}

val TrainerHandle::heldout_heads(const val& windows) const {
  return run_guarded(val::null(), [&] {
    int n = 0;
    const mha::Recipe& r = heldout_recipe(training_, windows, n);
    return val(mha::analysis_to_json(mha::analyse_heldout(training_->model(), r.corpus.data->heldout, n)).dump());
  });
}

val TrainerHandle::config() const {
  return run_guarded(val::null(), [&] { return training_ ? config_to_object(training_->recipe().config) : val::null(); });
}

val TrainerHandle::model_file() const {
  return run_guarded(val::null(), [&] {
    if (!training_) throw mha::Error("start the training first");
    const mha::Training& t = *training_;
    return uint8_array(mha::write_model(t.trainer().weights(), t.recipe().config,
                                        mha::training_metadata(t.recipe(), t.trainer().steps_done())));
  });
}

TraceHandle* TrainerHandle::run_ids(const val& ids) const {
  return run_guarded(static_cast<TraceHandle*>(nullptr), [&] {
    if (!training_) throw mha::Error("start the training first");
    const mha::Model model = training_->model();
    return new TraceHandle(model.run_ids(ids_from_js(ids)), model.config(), {}, model.shared_tokenizer());
  });
}

}  // namespace mha_wasm
