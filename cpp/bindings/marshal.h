// Conversions between JavaScript values and core types. Every check a JavaScript caller could
// get wrong (a string where a number belongs, a fraction) ends in an mha::Error with the option's name.
#pragma once

#include <emscripten/val.h>

#include <exception>
#include <optional>

#include <cstdint>
#include <string>
#include <vector>

#include "base/config.h"
#include "analysis/attribution.h"
#include "analysis/circuits.h"
#include "analysis/patching.h"
#include "analysis/importance.h"
#include "analysis/pruning.h"
#include "base/tensor.h"
#include "io/config_json.h"
#include "text/tokenizer.h"
#include "model/forward.h"
#include "model/model.h"
#include "model/generate.h"
#include "model/parameters.h"
#include "options.h"
#include "train/recipe.h"

namespace mha_wasm {

// Option objects, read through the rows of cpp/core/options.h alone: a key no row declares is an
// mha::Error naming it (unknown_option), a value outside its row's kind and limits one naming its key.
// Missing keys (and undefined or null values) keep what they start from.
//
// A Model's options (options.h model_options) over `base`, then checked (validate_config).
mha::Config config_from_options(const emscripten::val& options, const mha::Config& base);
// The model options as a model has them (model_options' keys), and what follows from them: dHead,
// parameters, layerNorm, mlp, ropeBase, stages.
emscripten::val config_to_object(const mha::Config& config);
// A Trainer's options (recipe_options and trainer_model_options) over the recipe of its task
// (options.task: 'induction', the default, 'recall' or 'corpus'); an option of another task is an error.
// corpus: the corpus task's text, {vocabulary, train, heldout?} (the texts of npm run corpus's files); else undefined.
mha::Recipe recipe_from_options(const emscripten::val& options, const emscripten::val& corpus);
// config_to_object and what the model is (model.h's ModelFacts): {…, weights: 'seeded' | 'loaded',
// layout, task, tokenizer, tokenTable, positions, biases, headsFrom}.
emscripten::val model_config_object(const mha::Config& config, const mha::ModelFacts& facts);

// One argument as the core wants it, or an mha::Error naming it (field: the core's name of it):
std::string string_arg(const emscripten::val& value, const char* name);  // a string
// a number with no fraction in [min, max] (codes not_a_number, not_whole, out_of_range)
double whole_number_arg(const emscripten::val& value, const char* name, double min, double max);
// a file's name for messages: a string, or undefined/null/"" for none (mha::kUnnamedFile)
std::string file_name_arg(const emscripten::val& value);
// config.json's text: a string, "" (or undefined/null) for none; parsed, or nullopt
std::optional<mha::ModelConfigFile> config_json_arg(const emscripten::val& value);

std::vector<uint8_t> bytes_from_js(const emscripten::val& array);  // Uint8Array or ArrayBuffer
std::vector<float> floats_from_js(const emscripten::val& array);    // Float32Array or number[]
emscripten::val float32_array(const std::vector<float>& values);   // a copy owned by JavaScript
emscripten::val int32_array(const std::vector<int32_t>& values);   // a copy owned by JavaScript
// Attributions of one model's positions as arrays: {positions, tokens: Int32Array, logits: Float64Array,
// parts: [{kind, layer?, head?}] (the same at every position), values: Float64Array (positions × parts)}.
emscripten::val attribution_arrays(const std::vector<mha::LogitAttribution>& attributions);
// importance_to_json's and prune_to_json's objects (cpp/core/analysis), made as JavaScript objects.
emscripten::val importance_object(const mha::HeadImportance& importance);
emscripten::val prune_object(const mha::Pruning& pruning);
// circuits_to_json's, head_circuit_to_json's and patching_to_json's objects, the same keys and values
// (built here rather than parsed from the core's JSON text: 3 KB less of the widget).
emscripten::val circuits_object(const mha::CircuitScores& scores);
emscripten::val head_circuit_object(const mha::HeadCircuit& circuit);
emscripten::val patch_object(const mha::PatchResult& result);
emscripten::val string_array(const std::vector<std::string>& values);
emscripten::val tokenized_object(const mha::Tokenized& tokenized);  // {tokens: string[], ids: Int32Array}
// [[layer, head], …] heads switched off -> their gates 0, every other 1; undefined/null: none.
mha::HeadGates head_switches_from_js(const emscripten::val& pairs, const mha::Config& config);
std::vector<int32_t> ids_from_js(const emscripten::val& ids);  // Int32Array or number[]
// runText's and runIds's options (options.h run_options): the heads they switch off (switchedOff,
// head_switches_from_js).
mha::HeadGates run_options_from_js(const emscripten::val& options, const mha::Config& config);
// A generation's options (options.h generate_options and run_options): the sampling and the heads
// switched off. What depends on the model (topK, tokens) the Generator checks.
struct GenerateRequest {
  mha::GenerateOptions options;
  mha::HeadGates switched_off;
};
GenerateRequest generate_options_from_js(const emscripten::val& options, const mha::Config& config);
mha::AttributeOptions attribute_options_from_js(const emscripten::val& options);  // Trace.attribute's
mha::TaskSampleOptions task_samples_from_js(const emscripten::val& options);      // headImportance's, prune's
// A text (through the model's tokenizer) or ids, else not_text_or_ids naming it `name`.
std::vector<int32_t> input_ids_from_js(const emscripten::val& input, const mha::Model& model, const char* name);
// Model.patch's options (options.h patch_options): its two inputs' ids and the metric's tokens.
struct PatchRequest {
  std::vector<int32_t> clean, corrupt;
  mha::PatchOptions options;
};
PatchRequest patch_request_from_js(const emscripten::val& options, const mha::Model& model);
// A step's numbers, flat: [id, p, sampled, kept, then for each candidate id, p, p before the cut]
// (web/mha.js makes the step object of them).
emscripten::val draw_numbers(const mha::Draw& draw);
// catalog.h's object as JSON text, as `mha catalog` prints it (web/mha.js parses it once into mha.catalog).
std::string catalog_text();  // the catalog without errorCodes (`mha catalog --module`)
emscripten::val error_codes();  // the catalog's errorCodes, [{code, english}], from the error table itself
// {message, field?, code?, params}: an error as JavaScript's MhaError carries it.
emscripten::val error_info(const std::exception& e);
// {layout} that a safetensors file's names imply (model_file.h guess_layout), or {error, info} (info as
// error_info). bytes: the whole file, or its first 8 + N bytes with file_size the whole file's (-1: bytes
// is the whole file); name: the file's, for messages.
emscripten::val guess_layout_object(const emscripten::val& bytes, const emscripten::val& file_size,
                                    const emscripten::val& name);

}  // namespace mha_wasm
