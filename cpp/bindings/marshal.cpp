#include "marshal.h"

#include <emscripten/bind.h>

#include <cmath>
#include <cstdio>

#include "base/error.h"
#include "catalog_text.h"  // generated: `mha catalog`, embedded (CMakeLists.txt)
#include "io/model_file.h"
#include "io/safetensors.h"
#include "model/stages.h"

namespace mha_wasm {

using emscripten::val;

namespace {

// The core's name of an option: dModel -> d_model, the field of the errors about it (T stays T).
std::string field_of(const char* key) {
  std::string out;
  for (const char* c = key; *c; ++c) {
    if (*c >= 'A' && *c <= 'Z' && c != key)
      out += '_', out += static_cast<char>(*c - 'A' + 'a');
    else out += *c;
  }
  return out;
}

// A number as a message says it: whole numbers without a fraction (1e12 as 1000000000000), others as %g.
std::string number_text(double x) {
  if (std::isfinite(x) && x == std::floor(x) && std::fabs(x) < 1e18) return std::to_string(static_cast<long long>(x));
  char text[32];
  std::snprintf(text, sizeof text, "%g", x);
  return text;
}
}  // namespace

double whole_number(const val& options, const char* key, double current, double min, double max) {
  const val v = options[key];
  if (v.isUndefined() || v.isNull()) return current;
  return whole_number_arg(v, key, min, max);
}

// A number option (fractions allowed), or `current` when it is missing.
double number(const val& options, const char* key, double current) {
  const val v = options[key];
  if (v.isUndefined() || v.isNull()) return current;
  if (!v.isNumber()) throw mha::Error(mha::ErrorCode::not_a_number, field_of(key), {{"name", key}});
  return v.as<double>();
}

// A positive, finite number option (a rate, a spread), or `current` when it is not given.
double positive_number(const val& options, const char* key, double current) {
  const val v = options[key];
  if (v.isUndefined() || v.isNull()) return current;
  if (!v.isNumber() || !std::isfinite(static_cast<float>(v.as<double>())) || !(v.as<double>() > 0))
    throw mha::Error(key + std::string(" must be a positive number"));
  return v.as<double>();
}

namespace {

// The ids of the stages a model walks, in table order.
val stage_ids(const mha::Config& c) {
  val ids = val::array();
  for (mha::Stage s : mha::stages_of(c)) ids.call<void>("push", std::string(mha::stage_name(s)));
  return ids;
}

}  // namespace

std::string string_arg(const val& value, const char* name) {
  if (!value.isString()) throw mha::Error(std::string(name) + " must be a string");
  return value.as<std::string>();
}

double whole_number_arg(const val& v, const char* key, double min, double max) {
  // {name} in English is the option as JavaScript spells it (dModel); the field is the core's name.
  if (!v.isNumber()) throw mha::Error(mha::ErrorCode::not_a_number, field_of(key), {{"name", key}});
  const double d = v.as<double>();
  if (!std::isfinite(d) || d != std::floor(d))
    throw mha::Error(mha::ErrorCode::not_whole, field_of(key), {{"name", key}});
  if (d < min || d > max)
    throw mha::Error(mha::ErrorCode::out_of_range, field_of(key),
                     {{"name", key}, {"min", number_text(min)}, {"max", number_text(max)}, {"value", number_text(d)}});
  return d;
}

std::string file_name_arg(const val& value) {
  if (value.isUndefined() || value.isNull()) return mha::kUnnamedFile;
  const std::string name = string_arg(value, "name");
  return name.empty() ? mha::kUnnamedFile : name;
}

std::optional<mha::ModelConfigFile> config_json_arg(const val& value) {
  if (value.isUndefined() || value.isNull()) return std::nullopt;
  const std::string text = string_arg(value, "config");
  if (text.empty()) return std::nullopt;
  return mha::parse_config_json(text);
}

mha::Config config_from_options(const val& options, const mha::Config& base) {
  if (!options.isUndefined() && !options.isNull() && options.typeOf().as<std::string>() != "object")
    throw mha::Error("options must be an object such as {dModel: 64, heads: 4}");
  if (options.isUndefined() || options.isNull()) return base;
  mha::Config c = base;
  // Wide ranges here; validate_config gives the learner-facing limits.
  c.d_model = static_cast<int>(whole_number(options, "dModel", c.d_model, -1e9, 1e9));
  c.heads = static_cast<int>(whole_number(options, "heads", c.heads, -1e9, 1e9));
  c.kv_heads = static_cast<int>(whole_number(options, "kvHeads", c.kv_heads, -1e9, 1e9));
  c.vocab_size = static_cast<int>(whole_number(options, "vocabSize", c.vocab_size, -1e9, 1e9));
  c.seed = static_cast<uint64_t>(whole_number(options, "seed", static_cast<double>(c.seed), 0, 9007199254740991.0));
  c.layers = static_cast<int>(whole_number(options, "layers", c.layers, -1e9, 1e9));
  c.max_positions = static_cast<int>(whole_number(options, "maxPositions", c.max_positions, -1e9, 1e9));
  const val model = options["model"];
  if (!model.isUndefined() && !model.isNull()) {
    if (!model.isString()) throw mha::Error("model must be \"single\", \"attn-only\" or \"gpt2\"");
    c.preset = mha::parse_preset(model.as<std::string>().c_str());
    if (mha::has_blocks(c.preset)) c.causal = true;
  }
  const val causal = options["causal"];
  if (!causal.isUndefined() && !causal.isNull()) {
    if (causal.typeOf().as<std::string>() != "boolean") throw mha::Error("causal must be true or false");
    c.causal = causal.as<bool>();
  }
  mha::validate_config(c);
  return c;
}

mha::Recipe recipe_from_options(const val& options) {
  const bool given = !options.isUndefined() && !options.isNull();
  const val task = given ? options["task"] : val::undefined();
  if (!task.isUndefined() && !task.isNull() && !task.isString()) throw mha::Error("task must be \"induction\" or \"recall\"");
  const mha::TaskKind kind = task.isString() ? mha::parse_task(task.as<std::string>()) : mha::TaskKind::induction;
  if (kind == mha::TaskKind::corpus) throw mha::Error("a Trainer trains the induction or the recall task; real text trains with mha train --task corpus");
  mha::Recipe r = mha::recipe_of(kind);
  r.config = config_from_options(options, r.config);
  if (!given) return r;
  // The sizes' limits are the core's (recipe.h's checked_recipe); here only what an int can hold.
  r.batch = static_cast<int>(whole_number(options, "batch", r.batch, 1, mha::kMaxBatch));
  r.induction.min_length =
      static_cast<int>(whole_number(options, "minLength", r.induction.min_length, 2, mha::kMaxInductionLength));
  r.induction.max_length =
      static_cast<int>(whole_number(options, "maxLength", r.induction.max_length, 2, mha::kMaxInductionLength));
  r.recall.readouts = static_cast<int>(whole_number(options, "recall", r.recall.readouts, 1, mha::kMaxReadouts));
  r.recall.length = static_cast<int>(whole_number(options, "length", r.recall.length, 2, mha::kMaxSeq));
  r.adam.lr = static_cast<float>(positive_number(options, "lr", r.adam.lr));
  r.init_std = static_cast<float>(positive_number(options, "initStd", r.init_std));
  return r;
}

val config_to_object(const mha::Config& c) {
  val o = val::object();
  o.set("dModel", c.d_model);
  o.set("heads", c.heads);
  o.set("kvHeads", c.kv_heads_or_heads());
  o.set("dHead", c.d_head());
  o.set("causal", c.causal);
  o.set("seed", static_cast<double>(c.seed));
  o.set("vocabSize", c.vocab_size);
  o.set("model", std::string(mha::preset_name(c.preset)));
  o.set("layers", c.layers);
  o.set("maxPositions", c.max_positions);
  o.set("readouts", c.readouts);  // tokens predicted per position: 1, or the recall task's K
  o.set("parameters", static_cast<double>(mha::parameter_count(c)));
  o.set("layerNorm", mha::has_layer_norm(c.preset));
  o.set("mlp", mha::has_mlp(c.preset));
  o.set("ropeBase", c.rope_base);
  o.set("stages", stage_ids(c));  // what this model walks: loaded llama weights add rope
  return o;
}

val model_config_object(const mha::Config& c, const mha::ModelFacts& f) {
  val o = config_to_object(c);
  o.set("weights", std::string(f.loaded ? "loaded" : "seeded"));
  o.set("layout", f.layout);
  o.set("task", f.task);
  o.set("tokenizer", f.tokenizer);
  o.set("tokenTable", f.token_table);
  o.set("positions", f.positions);
  o.set("biases", f.biases);
  o.set("headsFrom", f.heads_from);
  return o;
}

std::vector<uint8_t> bytes_from_js(const val& array) {
  val view = array;
  if (array.instanceof(val::global("ArrayBuffer"))) view = val::global("Uint8Array").new_(array);
  if (!view.instanceof(val::global("Uint8Array"))) throw mha::Error("weights must be a Uint8Array or ArrayBuffer");
  return emscripten::convertJSArrayToNumberVector<uint8_t>(view);
}

// The constructor, looked up once: every run copies its result out through it.
const val& float32_array_class() {
  static const val constructor = val::global("Float32Array");
  return constructor;
}

std::vector<float> floats_from_js(const val& array) {
  if (!array.instanceof(float32_array_class()) && !val::global("Array").call<bool>("isArray", array))
    throw mha::Error("x must be a Float32Array or an array of numbers");
  return emscripten::convertJSArrayToNumberVector<float>(array);
}

val attribution_arrays(const std::vector<mha::LogitAttribution>& attributions) {
  std::vector<int32_t> positions, tokens;
  std::vector<double> logits, values;
  for (const mha::LogitAttribution& a : attributions) {
    positions.push_back(a.position), tokens.push_back(a.token), logits.push_back(a.logit);
    for (const mha::LogitPart& p : a.parts) values.push_back(p.value);
  }
  val parts = val::array();
  for (const mha::LogitPart& p : attributions.at(0).parts) {
    val part = val::object();
    part.set("kind", std::string(mha::part_kind_name(p.kind)));
    if (p.layer >= 0) part.set("layer", p.layer);
    if (p.head >= 0) part.set("head", p.head);
    parts.call<void>("push", part);
  }
  const auto float64_array = [](const std::vector<double>& v) {
    return val::global("Float64Array").new_(emscripten::typed_memory_view(v.size(), v.data()));
  };
  val out = val::object();
  out.set("positions", int32_array(positions));
  out.set("tokens", int32_array(tokens));
  out.set("logits", float64_array(logits));
  out.set("parts", parts);
  out.set("values", float64_array(values));
  return out;
}

val importance_object(const mha::HeadImportance& importance) {
  val layers = val::array();
  for (size_t l = 0; l < importance.importance.size(); ++l) {
    val heads = val::array();
    for (size_t h = 0; h < importance.importance[l].size(); ++h) {
      mha::HeadMetrics m;
      mha::set_gradient_metrics(m, importance, l, h);
      val head = val::object();
      for (const mha::HeadMetricSpec& spec : mha::head_metric_table())
        if (spec.gradient) head.set(spec.id, *(m.*spec.value));
      heads.call<void>("push", head);
    }
    val layer = val::object();
    layer.set("heads", heads);
    layers.call<void>("push", layer);
  }
  val out = val::object();
  out.set("layers", layers);
  return out;
}

val prune_object(const std::vector<mha::PruneStep>& steps) {
  val list = val::array();
  for (const mha::PruneStep& s : steps) {
    val removed = val::array();
    for (const auto& [layer, head] : s.removed) {
      val pair = val::array();
      pair.call<void>("push", layer);
      pair.call<void>("push", head);
      removed.call<void>("push", pair);
    }
    val step = val::object();
    step.set("removed", removed);
    step.set("loss", s.loss);
    step.set("accuracy", s.accuracy);
    list.call<void>("push", step);
  }
  val out = val::object();
  out.set("steps", list);
  return out;
}

val float32_array(const std::vector<float>& values) {
  // new Float32Array(view) copies out of the WASM heap, so the result survives memory growth.
  return float32_array_class().new_(emscripten::typed_memory_view(values.size(), values.data()));
}

val int32_array(const std::vector<int32_t>& values) {
  return val::global("Int32Array").new_(emscripten::typed_memory_view(values.size(), values.data()));
}

val string_array(const std::vector<std::string>& values) {
  val out = val::array();
  for (const auto& s : values) out.call<void>("push", s);
  return out;
}

val tokenized_object(const mha::Tokenized& tokenized) {
  val out = val::object();
  out.set("tokens", string_array(tokenized.tokens));
  out.set("ids", int32_array(tokenized.ids));
  return out;
}

mha::HeadGates head_switches_from_js(const val& pairs, const mha::Config& c) {
  mha::HeadGates gates;
  if (pairs.isUndefined() || pairs.isNull()) return gates;
  if (!val::global("Array").call<bool>("isArray", pairs))
    throw mha::Error("switchedOff must be an array of [layer, head] pairs");
  gates.assign(static_cast<size_t>(c.layers), std::vector<float>(static_cast<size_t>(c.heads), 1.0f));
  const int n = pairs["length"].as<int>();
  for (int i = 0; i < n; ++i) {
    const val pair = pairs[i];
    if (!val::global("Array").call<bool>("isArray", pair) || pair["length"].as<int>() != 2 || !pair[0].isNumber() ||
        !pair[1].isNumber())
      throw mha::Error("switchedOff must be an array of [layer, head] pairs");
    const double layer = pair[0].as<double>(), head = pair[1].as<double>();
    if (layer != std::floor(layer) || head != std::floor(head) || layer < 0 || layer >= c.layers || head < 0 || head >= c.heads)
      throw mha::no_such_head(static_cast<long long>(layer), static_cast<long long>(head), c);
    gates[static_cast<size_t>(layer)][static_cast<size_t>(head)] = 0.0f;
  }
  return gates;
}

std::vector<int32_t> ids_from_js(const val& ids) {
  if (!ids.instanceof(val::global("Int32Array")) && !val::global("Array").call<bool>("isArray", ids))
    throw mha::Error("ids must be an Int32Array or an array of whole numbers");
  const std::vector<double> values = emscripten::convertJSArrayToNumberVector<double>(ids);
  std::vector<int32_t> out;
  out.reserve(values.size());
  for (double v : values) {
    if (!std::isfinite(v) || v != std::floor(v) || v < -2147483648.0 || v > 2147483647.0)
      throw mha::Error("ids must be whole numbers");
    out.push_back(static_cast<int32_t>(v));
  }
  return out;
}

mha::GenerateOptions generate_options_from_js(const val& options) {
  mha::GenerateOptions o;
  if (options.isUndefined() || options.isNull()) return o;
  if (options.typeOf().as<std::string>() != "object") throw mha::Error("options must be an object such as {tokens: 8}");
  o.tokens = static_cast<int>(whole_number(options, "tokens", o.tokens, -1e9, 1e9));
  o.sampling.temperature = static_cast<float>(number(options, "temperature", o.sampling.temperature));
  o.sampling.top_k = static_cast<int>(whole_number(options, "topK", o.sampling.top_k, -1e9, 1e9));
  o.sampling.top_p = static_cast<float>(number(options, "topP", o.sampling.top_p));
  o.sampling.seed = static_cast<uint64_t>(whole_number(options, "seed", static_cast<double>(o.sampling.seed), 0, 9007199254740991.0));
  o.top = static_cast<int>(whole_number(options, "top", o.top, 1, 1e6));
  const val cache = options["cache"];
  if (!cache.isUndefined() && !cache.isNull()) {
    if (cache.typeOf().as<std::string>() != "boolean") throw mha::Error("cache must be true or false");
    o.use_cache = cache.as<bool>();
  }
  return o;
}

val draw_numbers(const mha::Draw& d) {
  std::vector<double> out = {static_cast<double>(d.id), d.p, d.sampled ? 1.0 : 0.0, static_cast<double>(d.kept)};
  for (size_t i = 0; i < d.top.size(); ++i) out.insert(out.end(), {static_cast<double>(d.top[i].id), d.top[i].p, d.before[i]});
  return val::global("Float64Array").new_(emscripten::typed_memory_view(out.size(), out.data()));
}

std::string catalog_text() { return kCatalogText; }

val guess_layout_object(const val& bytes, const val& file_size, const val& name) {
  val out = val::object();
  try {
    const std::vector<uint8_t> data = bytes_from_js(bytes);
    const double size = whole_number_arg(file_size, "fileSize", -1, 9007199254740991.0);
    out.set("layout",
            mha::guess_layout(mha::SafetensorsHeader(
                data.data(), data.size(), size < 0 ? data.size() : static_cast<size_t>(size), file_name_arg(name))));
  } catch (const std::bad_alloc&) {
    out.set("error", std::string("out of memory"));
  } catch (const std::exception& e) {
    out.set("error", std::string(e.what()));
    out.set("info", error_info(e));
  }
  return out;
}

val error_info(const std::exception& e) {
  val out = val::object();
  out.set("message", std::string(e.what()));
  if (const auto* error = dynamic_cast<const mha::Error*>(&e)) {
    if (!error->field().empty()) out.set("field", error->field());
    if (!error->code().empty()) out.set("code", error->code());
    val params = val::object();
    for (const auto& [key, value] : error->params()) params.set(key, value);
    out.set("params", params);
  }
  return out;
}

}  // namespace mha_wasm
