// Conversions between JavaScript values and core types. Every check a JavaScript caller could
// get wrong (a string where a number belongs, a fraction) ends in an mha::Error with the option's name.
#pragma once

#include <emscripten/val.h>

#include <cstdint>
#include <string>
#include <vector>

#include "config.h"
#include "tensor.h"

namespace mha_wasm {

// {dModel, heads, kvHeads, causal, seed, vocabSize}: missing keys keep `base`'s values.
mha::Config config_from_options(const emscripten::val& options, const mha::Config& base);
emscripten::val config_to_object(const mha::Config& config);

std::vector<uint8_t> bytes_from_js(const emscripten::val& array);  // Uint8Array or ArrayBuffer
std::vector<float> floats_from_js(const emscripten::val& array);    // Float32Array or number[]
emscripten::val float32_array(const std::vector<float>& values);   // a copy owned by JavaScript
emscripten::val string_array(const std::vector<std::string>& values);

}  // namespace mha_wasm
