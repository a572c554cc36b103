// Every error a learner can meet, declared once: a stable id and the English sentence, whose {names}
// the throw site fills (params). The CLI prints the sentence; the module hands the table to the page
// (catalog.errorCodes), which says the same error in Chinese from web/src/messages.js and places it
// by its field; a test checks every id has its Chinese sentence there, with the same {names}.
// {name} is the setting the error is about (the error's field) when the params do not give it.
#pragma once

#include <vector>

// X(id, English sentence)
#define MHA_ERROR_CODES(X)                                                                                             \
  /* settings */                                                                                                       \
  X(not_a_number, "{name} must be a number")                                                                           \
  X(not_whole, "{name} must be a whole number")                                                                        \
  X(out_of_range, "{name} must be between {min} and {max}, got {value}")                                               \
  X(not_positive, "{name} must be above 0 and at most {max}, got {value}")                                             \
  X(not_fraction, "{name} must be at least 0 and below 1, got {value}")                                                \
  X(not_boolean, "{name} must be true or false")                                                                       \
  X(not_a_choice, "{name} must be one of {choices}, got {value}")                                                      \
  X(not_text_or_ids, "{name} must be a text or an array of token ids")                                                 \
  /* an option object (cpp/core/options.h): {what} is what takes it */                                                \
  X(unknown_option, "{name} is not an option of {what}; its options are {known}")                                      \
  X(unknown_option_near, "{name} is not an option of {what}; did you mean {near}?")                                    \
  X(option_of_other_task, "{name} is an option of the {task} task, but this Trainer trains the {trains} task")         \
  X(d_model_not_divisible, "d_model {d_model} is not divisible by heads {heads}: each head gets d_model / heads "      \
                           "dimensions")                                                                               \
  X(heads_not_divisible, "heads {heads} is not divisible by kv_heads {kv_heads}: each key/value head must serve the "  \
                         "same number of query heads")                                                                 \
  X(kv_heads_range, "kv_heads must be between 1 and heads ({heads}), got {value}")                                     \
  X(rope_odd_d_head, "RoPE turns pairs of dimensions, so d_head must be even; d_model {d_model} / heads {heads} = "    \
                     "{d_head}")                                                                                       \
  X(fixed_by_weights, "{name} is {value}: the loaded weights fix it; load another file or switch to random weights")   \
  X(no_such_head, "there is no head {layer}.{head}: layers are 0 to {last_layer} and heads 0 to {last_head}")          \
  /* the text and the ids */                                                                                           \
  X(text_empty, "text is empty: type at least one word or character")                                                  \
  X(text_too_long, "text is {bytes} bytes; the maximum is {max}")                                                      \
  X(text_too_many_tokens, "text has {tokens} tokens; the maximum is {max}")                                            \
  X(text_not_utf8, "text is not valid UTF-8: {what} at offset {offset}")                                               \
  X(text_too_many_different, "text has more than {max} different tokens, the most this model's vocabulary of {vocab} " \
                             "ids can tell apart")                                                                     \
  X(too_many_positions, "{tokens} tokens, but the model has only {max} positions")                                     \
  X(generate_past_positions, "{prompt} tokens of text and {new} new ones make {total}, but the model has only {max} "  \
                             "positions")                                                                              \
  X(token_outside_vocabulary, "token id {id} at position {position} is outside the vocabulary [0, {vocab})")           \
  X(needs_tokenizer, "a {model} model reads text with its own tokenizer: give its tokenizer files, or token ids")      \
  /* what each head contributes */                                                                                     \
  X(needs_blocks, "logit attribution, head importance, pruning, circuits and patching need a model that predicts "  \
                  "the next token (attn-only or gpt2), not one attention layer")                                       \
  X(needs_next_token, "logit attribution, patching and generation need a model that predicts the next token; this "  \
                      "one predicts the {readouts} tokens before each position (the recall task)")                      \
  X(samples_of_real_text, "a model of real text has no task to draw fresh sequences from: give it a text, each "      \
                          "position's next token the target (mha prune reads its held-out excerpt)")                  \
  X(position_outside_text, "position {position} is outside the text: its positions are 0 to {last}")                   \
  /* circuits and activation patching */                                                                               \
  X(composition_needs_two_layers, "composition needs a model of at least 2 layers, one whose heads write and one "     \
                                  "whose heads read; this one has {layers}")                                           \
  X(patch_lengths_differ, "the clean text has {clean} tokens and the corrupted one {corrupt}: patching swaps "        \
                          "activations position by position, so both need the same number of tokens")                 \
  X(patch_token_outside_vocabulary, "{name} id {id} is outside the vocabulary [0, {vocab})")                          \
  X(patch_no_difference, "the clean and the corrupted runs give the same logit difference between {answer} and "     \
                         "{wrong} ({metric}): there is nothing for a patch to recover; change another token or pick "  \
                         "other answers")                                                                              \
  /* the settings of a training run */                                                                                 \
  X(induction_needs_two_layers, "the induction task needs at least 2 layers, one to find the previous token and one "  \
                                "to copy what followed it; got {value}")                                               \
  X(training_too_large, "training on batches of {batch} × {tokens} tokens needs about {needed} MB of memory; the "     \
                        "limit is {max} MB")                                                                           \
  X(run_not_finite, "the numbers of this run overflowed: {tensor} has a value that is not finite (the weights or "    \
                    "the input are too large for float32)")                                                            \
  /* reading a file */                                                                                                 \
  X(file_not_found, "{file}: no such file")                                                                            \
  X(file_is_directory, "{file} is a directory, not a file")                                                            \
  X(file_unreadable, "{file}: cannot read it ({why})")                                                                 \
  X(file_too_large, "{file} is {bytes} bytes; at most {max} are read")                                                 \
  X(file_too_long, "{file} goes on past {max} bytes, the most read from a pipe or device")                             \
  /* a safetensors file (its name in {file}) */                                                                        \
  X(safetensors_too_short, "{file} is {bytes} bytes: too short for a safetensors file, which starts with an 8-byte "   \
                           "header length")                                                                            \
  X(safetensors_header_past_end, "{file}: the header length {length} runs past the end of the {size}-byte file (is "   \
                                 "the file truncated?)")                                                               \
  X(safetensors_header_too_large, "{file}: the header length {length} is over the limit of {max} bytes")               \
  X(safetensors_header_not_json, "{file}: the header is not valid JSON (at byte {byte})")                              \
  X(safetensors_number_too_large, "{file}: the header has a number too large to read: {number}")                       \
  X(safetensors_header_not_object, "{file}: the header is JSON but not an object")                                     \
  X(safetensors_key_twice, "{file}: the header names '{key}' twice, so it cannot be told which is meant")              \
  X(safetensors_metadata_not_object, "{file}: __metadata__ is not an object")                                          \
  X(safetensors_metadata_not_string, "{file}: metadata '{key}' is not a string")                                       \
  X(tensor_not_object, "{file}: tensor '{tensor}' is not a JSON object")                                               \
  X(tensor_no_dtype, "{file}: tensor '{tensor}' has no string \"dtype\"")                                              \
  X(tensor_no_shape, "{file}: tensor '{tensor}' has no \"shape\" array")                                               \
  X(tensor_no_offsets, "{file}: tensor '{tensor}' has no [begin, end] \"data_offsets\"")                               \
  X(tensor_bad_shape, "{file}: tensor '{tensor}' has a shape entry that is not a non-negative integer")                \
  X(tensor_shape_too_large, "{file}: tensor '{tensor}' has an impossibly large shape")                                 \
  X(tensor_bad_offsets, "{file}: tensor '{tensor}' has data_offsets that are not non-negative integers")               \
  X(tensor_outside_data, "{file}: tensor '{tensor}' has data_offsets [{begin}, {end}] outside the {size}-byte data "   \
                         "section (is the file truncated?)")                                                           \
  X(tensor_byte_count, "{file}: tensor '{tensor}' has {bytes} bytes but its {dtype} shape {shape} needs {needed}")     \
  X(tensors_overlap, "{file}: tensors '{first}' and '{second}' share bytes {begin} to {end} of the data section")      \
  X(tensor_missing, "{file} has no tensor '{tensor}'")                                                                 \
  X(tensor_not_float, "{file}: tensor '{tensor}' has dtype {dtype}; expected F32, F16 or BF16")                        \
  X(tensor_not_int, "{file}: tensor '{tensor}' has dtype {dtype}; expected I64 or I32")                                \
  X(tensor_wrong_shape, "{file}: tensor '{tensor}' has shape {shape}; expected {expected}")                            \
  X(tensor_nan, "{file}: tensor '{tensor}' contains NaN at flat index {index}")                                        \
  X(tensor_infinite, "{file}: tensor '{tensor}' contains infinity at flat index {index}")                              \
  /* a model or a layer in a safetensors file */                                                                       \
  X(layout_unknown, "{file}: cannot tell its layout: it has none of c_attn.weight (GPT-2), q_proj.weight (Llama) or "  \
                    "in_proj_weight (PyTorch)")                                                                        \
  X(file_is_one_layer, "{file} holds one {layout} attention layer, not a whole model: load it as weights")             \
  X(model_no_token_table, "{file} has no token table: looked for 'wte.weight' and 'transformer.wte.weight'")           \
  X(model_bad_block_name, "{file}: tensor '{tensor}' is not named {prefix}N.… with N a block number")                  \
  X(model_no_blocks, "{file} has no blocks: looked for '{tensor}'")                                                    \
  X(model_block_missing, "{file} has block {last} but no tensor of block {missing} ('{prefix}{missing}.…')")           \
  X(model_over_limit, "{file}: {size} is {value}, over the limit of {max}")                                            \
  X(model_no_heads, "{file} does not say how many heads its layers have: give the number of heads (12 for GPT-2 "      \
                    "small), or its config.json (n_head)")                                                             \
  X(config_not_object, "{file} is not a JSON object such as Hugging Face's config.json ({\"n_head\": 12, …})")         \
  X(config_not_json, "{file}: not valid JSON (at byte {byte})")                                                       \
  X(config_number_too_large, "{file}: a number too large to read: {number}")                                          \
  X(config_key_twice, "{file}: '{key}' is given twice, so it cannot be told which is meant")                          \
  X(config_bad_size, "{file}: {key} must be a whole number of at least 1, got {value}")                               \
  X(config_heads_disagree, "{file} says n_head {heads} but {model}'s __metadata__ says heads {value}: give the number " \
                           "of heads to choose")                                                                       \
  X(config_other_model, "{file} says {key} {said} but {model} has {value}: they are not one model's files")            \
  X(metadata_bad_heads, "{file}: __metadata__ heads is '{value}', not a whole number from 1 to {max}")                 \
  X(metadata_bad_recall, "{file}: __metadata__ says task recall but its recall is '{value}', not a whole number "     \
                         "of readouts from 1 to {max}")                                                                \
  X(metadata_bad_rope_theta, "{file}: __metadata__ rope_theta is '{value}'; expected a positive number such as 10000") \
  X(layer_not_found, "{file} has no {layout} attention weights for layer {layer}: looked for {looked}")                \
  X(kv_rows_not_multiple, "{file}: the K projection has {rows} rows, not a multiple of d_head {d_head}")               \
  X(kv_heads_file_mismatch, "kv_heads is {kv_heads} but the K projection of {file} has {rows} rows = "                 \
                            "{file_kv_heads} heads of d_head {d_head}")                                                \
  /* tokenizer files (field "tokenizer") */                                                                            \
  X(tokenizer_vocab_mismatch, "the tokenizer has {tokenizer} ids but the model's vocabulary only {vocab}: they do "    \
                              "not belong together")                                                                   \
  X(tokenizer_missing, "no tokenizer in '{dir}': it needs encoder.json or vocab.json with vocab.bpe or merges.txt, "   \
                       "or tokenizer.json")                                                                            \
  X(tokenizer_not_byte_level, "{file} has no token for byte {byte} (spelled \"{spelled}\"): it is not a byte-level "   \
                              "BPE vocabulary like GPT-2's")                                                           \
  X(tokenizer_not_json, "{file}: not valid JSON (at byte {byte})")                                                     \
  X(tokenizer_number_too_large, "{file}: a number too large to read: {number}")                                        \
  X(tokenizer_key_twice, "{file}: '{key}' is given twice, so it cannot be told which is meant")                        \
  X(tokenizer_vocab_not_object, "{file}: the vocabulary is not a non-empty object of token: id")                       \
  X(tokenizer_empty_token, "{file}: the vocabulary has an empty token")                                                \
  X(tokenizer_id_not_whole, "{file}: the id of {token} is not a whole number")                                         \
  X(tokenizer_id_range, "{file}: {token} has id {id}, outside 0 to {max}")                                             \
  X(tokenizer_id_twice, "{file}: id {id} is given to both {first} and {second}")                                       \
  X(tokenizer_bad_merge_line, "{file}: line {line} is not two tokens separated by a space: {text}")                    \
  X(tokenizer_merge_line_unknown, "{file}: line {line}: {merge} needs {token}, which is not in the vocabulary")        \
  X(tokenizer_no_model, "{file}: has no \"model\" object")                                                             \
  X(tokenizer_not_bpe, "{file}: model.type is not \"BPE\"")                                                            \
  X(tokenizer_no_vocab_merges, "{file}: model needs \"vocab\" and a \"merges\" array")                                 \
  X(tokenizer_bad_merge, "{file}: model.merges[{index}] is neither \"a b\" nor [\"a\", \"b\"]")                        \
  X(tokenizer_merge_unknown, "{file}: model.merges[{index}]: {merge} needs {token}, which is not in the vocabulary")

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
