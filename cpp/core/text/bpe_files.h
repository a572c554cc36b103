// Loading GPT-2's tokenizer from the files that come with a checkpoint:
//   encoder.json or vocab.json  token -> id, e.g. {"Ġthe": 262}
//   vocab.bpe or merges.txt     one merge per line, "Ġ t", in rank order; the first line may be "#version: 0.2"
// or Hugging Face's single tokenizer.json (model.vocab and model.merges; a merge is "Ġ t" or ["Ġ", "t"]).
// A bad file is an mha::Error naming it (field "tokenizer"), never a crash.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "text/bpe_tokenizer.h"

namespace mha {

// From bytes in hand (the page's files); the names are the files' names, for error messages.
std::shared_ptr<BpeTokenizer> bpe_from_vocab_and_merges(const std::vector<uint8_t>& vocab_json, const std::string& vocab_name,
                                                        const std::vector<uint8_t>& merges_text, const std::string& merges_name);
std::shared_ptr<BpeTokenizer> bpe_from_tokenizer_json(const std::vector<uint8_t>& json, const std::string& name);

// From a directory (the CLI's --tokenizer): the pair of files if present, else tokenizer.json.
std::shared_ptr<BpeTokenizer> load_bpe_tokenizer(const std::string& dir);

}  // namespace mha
