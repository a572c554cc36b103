// Conversions between JavaScript values and core types. Every check a JavaScript caller could
// get wrong (a string where a number belongs, a fraction) ends in an mha::Error with the option's name.
#pragma once

#include <emscripten/val.h>

#include <exception>

#include <cstdint>
#include <string>
#include <vector>

#include "base/config.h"
#include "base/tensor.h"
#include "text/tokenizer.h"
#include "model/forward.h"
#include "model/generate.h"
#include "model/parameters.h"

namespace mha_wasm {

// {model, layers, dModel, heads, kvHeads, causal, seed, vocabSize, maxPositions}: missing keys keep
// `base`'s values. model: "single" | "attn-only" | "gpt2".
mha::Config config_from_options(const emscripten::val& options, const mha::Config& base);
emscripten::val config_to_object(const mha::Config& config);

std::vector<uint8_t> bytes_from_js(const emscripten::val& array);  // Uint8Array or ArrayBuffer
std::vector<float> floats_from_js(const emscripten::val& array);    // Float32Array or number[]
emscripten::val float32_array(const std::vector<float>& values);   // a copy owned by JavaScript
emscripten::val int32_array(const std::vector<int32_t>& values);   // a copy owned by JavaScript
emscripten::val string_array(const std::vector<std::string>& values);
emscripten::val tokenized_object(const mha::Tokenized& tokenized);  // {tokens: string[], ids: Int32Array}
// [[layer, head], …] heads switched off -> their gates 0, every other 1; undefined/null: none.
mha::HeadGates head_switches_from_js(const emscripten::val& pairs, const mha::Config& config);
std::vector<int32_t> ids_from_js(const emscripten::val& ids);  // Int32Array or number[]
// {tokens, temperature, topK, topP, seed, top, cache}: missing keys keep generate.h's defaults; the
// ranges are the core's to check (Generator).
mha::GenerateOptions generate_options_from_js(const emscripten::val& options);
// A step's numbers, flat: [id, p, sampled, kept, then for each candidate id, p, p before the cut]
// (web/mha.js makes the step object of them).
emscripten::val draw_numbers(const mha::Draw& draw);
// catalog.h's object as JSON text (web/mha.js parses it once into mha.catalog).
std::string catalog_text();
// {message, field?, code?, params}: an error as JavaScript's MhaError carries it.
emscripten::val error_info(const std::exception& e);
// {layout} that a safetensors file's names imply (model_file.h guess_layout), or {error}. bytes: the
// whole file, or its first 8 + N bytes with file_size the whole file's (-1: bytes is the whole file).
emscripten::val guess_layout_object(const emscripten::val& bytes, double file_size);

}  // namespace mha_wasm
