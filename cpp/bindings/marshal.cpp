#include "marshal.h"

#include <emscripten/bind.h>

#include <cmath>

#include "error.h"

namespace mha_wasm {

using emscripten::val;

namespace {

double whole_number(const val& options, const char* key, double current, double min, double max) {
  const val v = options[key];
  if (v.isUndefined() || v.isNull()) return current;
  if (!v.isNumber()) throw mha::Error(std::string(key) + " must be a number");
  const double d = v.as<double>();
  if (!std::isfinite(d) || d != std::floor(d)) throw mha::Error(std::string(key) + " must be a whole number");
  if (d < min || d > max)
    throw mha::Error(std::string(key) + " must be between " + std::to_string(static_cast<long long>(min)) + " and " +
                     std::to_string(static_cast<long long>(max)) + ", got " + std::to_string(static_cast<long long>(d)));
  return d;
}

}  // namespace

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
  const val causal = options["causal"];
  if (!causal.isUndefined() && !causal.isNull()) {
    if (causal.typeOf().as<std::string>() != "boolean") throw mha::Error("causal must be true or false");
    c.causal = causal.as<bool>();
  }
  mha::validate_config(c);
  return c;
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
  return o;
}

std::vector<uint8_t> bytes_from_js(const val& array) {
  val view = array;
  if (array.instanceof(val::global("ArrayBuffer"))) view = val::global("Uint8Array").new_(array);
  if (!view.instanceof(val::global("Uint8Array"))) throw mha::Error("weights must be a Uint8Array or ArrayBuffer");
  return emscripten::convertJSArrayToNumberVector<uint8_t>(view);
}

std::vector<float> floats_from_js(const val& array) {
  if (!array.instanceof(val::global("Float32Array")) && !val::global("Array").call<bool>("isArray", array))
    throw mha::Error("x must be a Float32Array or an array of numbers");
  return emscripten::convertJSArrayToNumberVector<float>(array);
}

val float32_array(const std::vector<float>& values) {
  // new Float32Array(view) copies out of the WASM heap, so the result survives memory growth.
  return val::global("Float32Array").new_(emscripten::typed_memory_view(values.size(), values.data()));
}

val string_array(const std::vector<std::string>& values) {
  val out = val::array();
  for (const auto& s : values) out.call<void>("push", s);
  return out;
}

}  // namespace mha_wasm
