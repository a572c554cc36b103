// Every error a learner can meet, declared once: a stable id and the English sentence, whose {names}
// the throw site fills (params). The CLI prints the sentence; the module hands the table to the page
// (catalog.errorCodes), which says the same error in Chinese from web/src/messages.js and places it
// by its field; a test checks every id has its Chinese sentence there, with the same {names}.
// {name} is the setting the error is about (the error's field) when the params do not give it.
#pragma once

#include <vector>

// X(id, English sentence)
#define MHA_ERROR_CODES(X)                                                                                            \
  /* settings */                                                                                                      \
  X(not_a_number, "{name} must be a number")                                                                          \
  X(not_whole, "{name} must be a whole number")                                                                       \
  X(out_of_range, "{name} must be between {min} and {max}, got {value}")                                              \
  X(d_model_not_divisible, "d_model {d_model} is not divisible by heads {heads}: each head gets d_model / heads "     \
                           "dimensions")                                                                              \
  X(heads_not_divisible, "heads {heads} is not divisible by kv_heads {kv_heads}: each key/value head must serve the " \
                         "same number of query heads")                                                                \
  X(kv_heads_range, "kv_heads must be between 1 and heads ({heads}), got {value}")                                    \
  X(rope_odd_d_head, "RoPE turns pairs of dimensions, so d_head must be even; d_model {d_model} / heads {heads} = "   \
                     "{d_head}")                                                                                      \
  X(fixed_by_weights, "{name} is {value}: the loaded weights fix it; load another file or switch to random weights")  \
  X(no_such_head, "there is no head {layer}.{head} to switch off: layers are 0 to {last_layer} and heads 0 to "       \
                  "{last_head}")                                                                                      \
  /* the text and the ids */                                                                                          \
  X(text_empty, "text is empty: type at least one word or character")                                                 \
  X(text_too_long, "text is {bytes} bytes; the maximum is {max}")                                                     \
  X(text_too_many_tokens, "text has {tokens} tokens; the maximum is {max}")                                           \
  X(text_not_utf8, "text is not valid UTF-8: {what} at offset {offset}")                                              \
  X(text_too_many_different, "text has more than {max} different tokens, the most this model's vocabulary of {vocab} " \
                             "ids can tell apart")                                                                    \
  X(too_many_positions, "{tokens} tokens, but the model has only {max} positions")                                    \
  X(generate_past_positions, "{prompt} tokens of text and {new} new ones make {total}, but the model has only {max} " \
                             "positions")                                                                             \
  X(token_outside_vocabulary, "token id {id} at position {position} is outside the vocabulary [0, {vocab})")          \
  X(needs_tokenizer, "a {model} model reads text with its own tokenizer: give its tokenizer files, or token ids")     \
  /* tokenizer files */                                                                                               \
  X(tokenizer_vocab_mismatch, "the tokenizer has {tokenizer} ids but the model's vocabulary only {vocab}: they do "   \
                              "not belong together")                                                                  \
  X(tokenizer_bad_file, "{file}: {why}")                                                                              \
  X(tokenizer_missing, "no tokenizer in '{dir}': it needs encoder.json or vocab.json with vocab.bpe or merges.txt, "  \
                       "or tokenizer.json")                                                                           \
  X(tokenizer_not_byte_level, "{file} has no token for byte {byte} (spelled \"{spelled}\"): it is not a byte-level "  \
                              "BPE vocabulary like GPT-2's")

namespace mha {

enum class ErrorCode {
#define MHA_ERROR_ENUM(id, english) id,
  MHA_ERROR_CODES(MHA_ERROR_ENUM)
#undef MHA_ERROR_ENUM
};

struct ErrorCodeSpec {
  ErrorCode code;
  const char* id;       // "d_model_not_divisible": what the page and the tests key on
  const char* english;  // with {names} for the params
};

// In declaration order.
const std::vector<ErrorCodeSpec>& error_code_table();
const ErrorCodeSpec& error_code_spec(ErrorCode code);

}  // namespace mha
