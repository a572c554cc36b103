// What each fuzz target does with one input, as plain functions: the libFuzzer binaries call them
// (fuzz_main.cpp), and the doctest suite runs every file of tests/fuzz/corpus through them, so the
// checked-in corpus is exercised by every build, sanitizers included.
//
// Each returns normally for any input: a bad file must end in an mha::Error, which the target
// catches. Anything else escaping (another exception, a crash, a sanitizer report) or a mismatch it
// checks (abort) is a bug. See fuzz_main.cpp for how to build and run them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace mha_fuzz {

// The safetensors header parser and the tensor reads of a whole file in memory.
void safetensors_header(const uint8_t* data, size_t size);
// A whole model (read_model) and one attention layer in each layout, and a short run of what loads.
void model_file(const uint8_t* data, size_t size);
// The streaming ModelBuilder fed a file's tensors in pieces of sizes drawn from data[0] (the rest is
// the file; data[0] odd reads it as gpt2, even as attn-only), against the one-shot read_model: the
// same model bit for bit, or the same error.
void model_builder(const uint8_t* data, size_t size);
// GPT-2's tokenizer files: data[0] even, encoder.json | vocab.bpe | text; odd, tokenizer.json | text,
// the parts separated by the bytes FF FE FD (never in UTF-8 text); then the text tokenized.
void bpe_files(const uint8_t* data, size_t size);

struct Target {
  const char* name;  // the corpus folder and the binary's suffix: tests/fuzz/corpus/<name>, build/fuzz/fuzz_<name>
  void (*run)(const uint8_t* data, size_t size);
};
const std::vector<Target>& targets();

}  // namespace mha_fuzz
