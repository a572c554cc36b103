// The config.json Hugging Face ships beside a GPT-2 checkpoint (model.safetensors, config.json and
// the tokenizer's files come together): the sizes it says, so that a checkpoint whose safetensors
// header names no heads opens with the right number. Only the keys of a GPT-2 config are read:
// n_head, n_layer, n_positions, n_embd, vocab_size; every other key is ignored.
#pragma once

#include <string>

namespace mha {

struct ModelConfigFile {
  std::string name = "config.json";  // as the messages name it
  // 0 where the file does not say
  int heads = 0;      // n_head
  int layers = 0;     // n_layer
  int positions = 0;  // n_positions
  int d_model = 0;    // n_embd
  int vocab = 0;      // vocab_size
};

// Throws mha::Error naming the file for text that is not a JSON object, or a size that is not a
// whole number from 1 to 2^31 − 1.
ModelConfigFile parse_config_json(const std::string& text, const std::string& name = "config.json");

}  // namespace mha
