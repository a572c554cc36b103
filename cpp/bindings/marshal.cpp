#include "marshal.h"

#include <emscripten/bind.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "base/error.h"
#include "catalog_text.h"  // generated: `mha catalog --module`, embedded (CMakeLists.txt)
#include "io/model_file.h"
#include "io/safetensors.h"
#include "model/stages.h"
#include "options.h"

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
using mha::number_text;

bool given(const val& v) { return !v.isUndefined() && !v.isNull(); }

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// One option's value as its row's field takes it (options.h OptionField: a number, a flag 0 or 1, a
// choice's index), else an mha::Error with its code, the core's name of it as field and the key as
// JavaScript spells it as {name}.
double option_value(const val& v, const char* key, mha::OptionKind kind, double min, double max,
                    const std::vector<std::string>& choices) {
  using mha::ErrorCode;
  using K = mha::OptionKind;
  if (kind == K::whole) return whole_number_arg(v, key, min, max);
  mha::ErrorParams said = {{"name", key}};
  ErrorCode refused = ErrorCode::not_a_number;
  if (kind == K::flag) {
    if (v.typeOf().as<std::string>() == "boolean") return v.as<bool>() ? 1 : 0;
    refused = ErrorCode::not_boolean;
  } else if (kind == K::choice) {
    const std::string text = v.isString() ? v.as<std::string>() : "";
    for (size_t i = 0; i < choices.size(); ++i)
      if (v.isString() && text == choices[i]) return static_cast<double>(i);
    refused = ErrorCode::not_a_choice;
    said["choices"] = joined(choices);
    said["value"] = v.isString() ? "'" + mha::printable(text, 40) + "'" : v.typeOf().as<std::string>();
  } else if (v.isNumber()) {
    mha::check_option_number(kind, min, max, v.as<double>(), key, field_of(key));
    return v.as<double>();
  }
  throw mha::Error(refused, field_of(key), said);
}

// The keys of one table of options, or of several that one call takes.
template <class... Targets>
std::vector<std::string> keys_of(const std::vector<mha::OptionSpec<Targets>>&... tables) {
  std::vector<std::string> keys;
  (..., [&](const auto& rows) {
    for (const auto& row : rows) keys.push_back(row.key);
  }(tables));
  return keys;
}

// Every own key of `options` is one `known` lists, else unknown_option naming it (and the key it is a
// slip of): a misspelt key must not leave its option at its default unseen. undefined and null: none.
void check_option_keys(const val& options, const std::vector<std::string>& known, const char* what) {
  if (!given(options)) return;
  if (options.typeOf().as<std::string>() != "object")
    throw mha::Error(std::string("options must be an object: ") + what + " takes {" + joined(known) + "}");
  for (const std::string& key : emscripten::vecFromJSArray<std::string>(val::global("Object").call<val>("keys", options)))
    if (std::find(known.begin(), known.end(), key) == known.end()) throw mha::unknown_option(key, what, known);
}

// The options `rows` declare that `options` gives, set in `target` in the rows' order; the others stay.
template <class Target>
void read_options(const val& options, const std::vector<mha::OptionSpec<Target>>& rows, Target& target) {
  if (!given(options)) return;
  for (const mha::OptionSpec<Target>& row : rows) {
    const val v = options[row.key];
    if (row.field.set && given(v))
      row.field.set(target, option_value(v, row.key, row.kind, row.min, row.max, mha::option_choices(row)));
  }
}

// An option object whose keys are all rows': `start` with the given ones set.
template <class Target>
Target options_from_js(const val& options, const std::vector<mha::OptionSpec<Target>>& rows, Target start, const char* what) {
  check_option_keys(options, keys_of(rows), what);
  read_options(options, rows, start);
  return start;
}

}  // namespace

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
  mha::check_option_number(mha::OptionKind::whole, min, max, v.as<double>(), key, field_of(key));
  return v.as<double>();
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
  if (!given(options)) return base;
  const mha::Config c = options_from_js(options, mha::model_options(), base, "Model");
  mha::validate_config(c);
  return c;
}

mha::Recipe recipe_from_options(const val& options, const val& corpus) {
  check_option_keys(options, keys_of(mha::recipe_options(), mha::trainer_model_options()), "Trainer");
  // The default task's recipe; options.task, read first, replaces it with its own.
  mha::Recipe r = mha::recipe_of(mha::TaskKind::induction);
  read_options(options, mha::recipe_options(), r);
  read_options(options, mha::trainer_model_options(), r.config);
  // An option of the other task's would be left unread: say so rather than train without it.
  for (const mha::OptionSpec<mha::Recipe>& row : mha::recipe_options())
    if (row.task && given(options) && given(options[row.key]) && row.task != std::string(mha::task_name(r.task)))
      throw mha::Error(mha::ErrorCode::option_of_other_task, field_of(row.key),
                       {{"name", row.key}, {"task", row.task}, {"trains", mha::task_name(r.task)}});
  if (r.task != mha::TaskKind::corpus) {
    if (given(corpus)) throw mha::Error(std::string("a Trainer of the ") + mha::task_name(r.task) + " task takes no text; the corpus task does");
    return r;
  }
  // The corpus task's text, as `npm run corpus` writes its files: its vocabulary sets the model's.
  if (!given(corpus))
    throw mha::Error("the corpus task trains on text: new Trainer(options, {vocabulary, train, heldout}), the texts of the "
                     "corpus's files as npm run corpus writes them ({corpus}.vocab.json, .train.txt, .heldout.txt)");
  check_option_keys(corpus, {"vocabulary", "train", "heldout"}, "a Trainer's text");
  // vocabSize, given: the text's vocabulary's most frequent tokens (as `mha train --vocab`).
  const val heldout = corpus["heldout"];
  const int most_frequent = given(options) && given(options["vocabSize"]) ? r.config.vocab_size : 0;
  r.corpus.data = mha::corpus_from_texts(r.corpus.corpus, string_arg(corpus["vocabulary"], "vocabulary"), string_arg(corpus["train"], "train"),
                                         given(heldout) ? string_arg(heldout, "heldout") : std::string(), r.corpus.corpus, most_frequent);
  return mha::checked_recipe(r);
}

val config_to_object(const mha::Config& c) {
  val o = val::object();
  for (const mha::OptionSpec<mha::Config>& row : mha::model_options()) {
    const double v = row.field.get(c);
    if (row.kind == mha::OptionKind::choice) o.set(row.key, std::string(row.choice(static_cast<size_t>(v))));
    else if (row.kind == mha::OptionKind::flag) o.set(row.key, v != 0);
    else o.set(row.key, v);
  }
  o.set("dHead", c.d_head());
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

namespace {
val pair_array(double a, double b) {
  val out = val::array();
  out.call<void>("push", a);
  out.call<void>("push", b);
  return out;
}

// values, `width` to a row, as arrays of numbers
val rows_array(const std::vector<double>& values, size_t width) {
  val out = val::array();
  for (size_t i = 0; i < values.size(); i += width) {
    val row = val::array();
    for (size_t j = i; j < i + width; ++j) row.call<void>("push", values[j]);
    out.call<void>("push", row);
  }
  return out;
}

// [{layer, [index]: i, [key]: value}] for every table[layer][i]
val layer_entries(const std::vector<std::vector<double>>& table, const char* index, const char* key) {
  val out = val::array();
  for (size_t l = 0; l < table.size(); ++l)
    for (size_t i = 0; i < table[l].size(); ++i) {
      val entry = val::object();
      entry.set("layer", static_cast<int>(l));
      entry.set(index, static_cast<int>(i));
      entry.set(key, table[l][i]);
      out.call<void>("push", entry);
    }
  return out;
}
}  // namespace

val circuits_object(const mha::CircuitScores& s) {
  val composition = val::array();
  for (const mha::CompositionScore& e : s.composition) {
    val entry = val::object();
    entry.set("mode", std::string(mha::composition_mode_name(e.mode)));
    entry.set("from", pair_array(e.from_layer, e.from_head));
    entry.set("to", pair_array(e.to_layer, e.to_head));
    entry.set("score", e.score);
    composition.call<void>("push", entry);
  }
  val baseline = val::object();
  baseline.set("Q", s.baseline[0]);
  baseline.set("K", s.baseline[1]);
  baseline.set("V", s.baseline[2]);
  val out = val::object();
  out.set("copying", layer_entries(s.copying, "head", "score"));
  out.set("composition", composition);
  out.set("baseline", baseline);
  return out;
}

val head_circuit_object(const mha::HeadCircuit& h) {
  val top = val::array();
  for (const auto& row : h.ov_top) {
    val pairs = val::array();
    for (const auto& [id, value] : row) pairs.call<void>("push", pair_array(id, value));
    top.call<void>("push", pairs);
  }
  val tokens = val::array();
  for (int32_t id : h.tokens) tokens.call<void>("push", id);
  val out = val::object();
  out.set("layer", h.layer);
  out.set("head", h.head);
  out.set("tokens", tokens);
  out.set("qk_positional", rows_array(h.qk_positional, static_cast<size_t>(h.positions)));
  out.set("qk_token", rows_array(h.qk_token, h.tokens.size()));
  out.set("ov", rows_array(h.ov, h.tokens.size()));
  out.set("ov_top", top);
  return out;
}

val patch_object(const mha::PatchResult& r) {
  val out = val::object();
  out.set("answer", r.answer);
  out.set("wrong", r.wrong);
  out.set("m_clean", r.m_clean);
  out.set("m_corrupt", r.m_corrupt);
  out.set("heads", layer_entries(r.heads, "head", "recovery"));
  out.set("residual", layer_entries(r.residual, "position", "recovery"));
  return out;
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

val prune_object(const mha::Pruning& pruning) {
  val list = val::array();
  for (const mha::PruneStep& s : pruning.steps) {
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
  out.set("importance", importance_object(pruning.importance));
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

namespace {
// The heads `options` switches off: run_options()'s heads row, read by head_switches_from_js.
mha::HeadGates switched_off_of(const val& options, const mha::Config& config) {
  mha::HeadGates gates;
  for (const mha::OptionSpec<mha::RunOptions>& row : mha::run_options())
    if (row.kind == mha::OptionKind::heads && given(options)) gates = head_switches_from_js(options[row.key], config);
  return gates;
}
}  // namespace

mha::HeadGates run_options_from_js(const val& options, const mha::Config& config) {
  check_option_keys(options, keys_of(mha::run_options()), "runText and runIds");
  return switched_off_of(options, config);
}

GenerateRequest generate_options_from_js(const val& options, const mha::Config& config) {
  check_option_keys(options, keys_of(mha::generate_options(), mha::run_options()), "generate");
  GenerateRequest out;
  read_options(options, mha::generate_options(), out.options);
  out.switched_off = switched_off_of(options, config);
  return out;
}

mha::AttributeOptions attribute_options_from_js(const val& options) {
  return options_from_js(options, mha::attribute_options(), mha::AttributeOptions{}, "attribute");
}

mha::TaskSampleOptions task_samples_from_js(const val& options) {
  return options_from_js(options, mha::task_sample_options(), mha::TaskSampleOptions{}, "headImportance and prune");
}

std::vector<int32_t> input_ids_from_js(const val& input, const mha::Model& model, const char* name) {
  if (input.isString()) return model.run_text(input.as<std::string>()).ids;
  if (!input.instanceof(val::global("Int32Array")) && !val::global("Array").call<bool>("isArray", input))
    throw mha::Error(mha::ErrorCode::not_text_or_ids, name, {{"name", name}});
  return ids_from_js(input);
}

PatchRequest patch_request_from_js(const val& options, const mha::Model& model) {
  PatchRequest out;
  out.options = options_from_js(options, mha::patch_options(), mha::PatchOptions{}, "patch");
  for (const mha::OptionSpec<mha::PatchOptions>& row : mha::patch_options())
    if (row.kind == mha::OptionKind::input)
      (row.key == std::string("clean") ? out.clean : out.corrupt) =
          input_ids_from_js(given(options) ? options[row.key] : val::undefined(), model, row.key);
  return out;
}

val draw_numbers(const mha::Draw& d) {
  std::vector<double> out = {static_cast<double>(d.id), d.p, d.sampled ? 1.0 : 0.0, static_cast<double>(d.kept)};
  for (size_t i = 0; i < d.top.size(); ++i) out.insert(out.end(), {static_cast<double>(d.top[i].id), d.top[i].p, d.before[i]});
  return val::global("Float64Array").new_(emscripten::typed_memory_view(out.size(), out.data()));
}

std::string catalog_text() { return kCatalogText; }

val error_codes() {
  val out = val::array();
  for (const mha::ErrorCodeSpec& e : mha::error_code_table()) {
    val row = val::object();
    row.set("code", std::string(e.id));
    row.set("english", std::string(e.english));
    out.call<void>("push", row);
  }
  return out;
}

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
